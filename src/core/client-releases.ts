/**
 * The immutable client release that matches each V4 profile: release 4.1.1 adds the coverage command and keeps the
 * 4.1.0 contract (spec/schemas/custom-launch-capabilities.v2.schema.json and discovery-manifest.v1.schema.json publish
 * it as clientRelease). Capabilities, discovery, the packer and the CLI read it.
 */
export const clientReleases = { '4.1.0': '4.1.1', '4.0.0': '4.0.0' } as const;
