import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CustomLaunchCreateRequestV4, CustomLaunchResourceV4 } from '../../generated/types/service.ts';
import { BoundMetadataMismatch, checkBoundMetadata } from '../../src/client/launches/bound-metadata.ts';
import { canonicalJson, sha256Digest } from '../../src/core/canonical-json.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';

// custom-launch-resource.v4.schema.json boundMetadata: the wallet review shows the same bound metadata read-only. The
// client shows it only once it is the bound one.

const exampleBytes = readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url));
const example = JSON.parse(exampleBytes.toString('utf8')) as CustomLaunchCreateRequestV4;

/** An authorized resource as the server answers it for the stored request `bytes` (valid against the spec). */
function authorized(bytes: Buffer): CustomLaunchResourceV4 {
  const request = JSON.parse(bytes.toString('utf8')) as CustomLaunchCreateRequestV4;
  const resource: CustomLaunchResourceV4 = {
    schemaVersion: 'platform.custom-launch-resource.v4',
    apiVersion: 4,
    launchId: '0b6f7a5e-3c1d-4e2f-8a9b-0c1d2e3f4a5b',
    chainId: '4663',
    caip2: 'eip155:4663',
    profile: '4.1.0',
    status: 'authorized',
    createdAt: '2026-11-24T10:00:00.000Z',
    updatedAt: '2026-11-24T10:00:05.000Z',
    launchWallet: request.launchWallet,
    requestDigest: sha256Digest(bytes),
    launchIntentHash: request.launchIntentHash,
    partnerAttribution: null,
    walletTransaction: {
      chainId: '4663',
      from: request.launchWallet,
      to: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      valueWei: '10000000000000000',
      data: '0x1234',
      gasLimit: '500000',
      permitExpiresAt: '2026-11-24T11:00:00.000Z',
      simulationDigest: `sha256:${'ab'.repeat(32)}`,
    },
    boundMetadata: { projectMetadataHash: request.projectMetadataHash, projectMetadata: request.projectMetadata },
    chainEvidence: null,
    findings: [],
    remediation: null,
    failure: null,
    permitReissue: null,
    lifecycleQueue: {
      state: 'idle',
      attempt: 0,
      deadlineAt: '2026-11-24T11:00:00.000Z',
      nextAttemptAt: null,
      lastErrorCode: null,
    },
  };
  expect(schemaProblems('custom-launch-resource.v4.schema.json', resource)).toEqual([]);
  return resource;
}

/** The example request with `edit` applied and its metadata hash bound again. */
function variant(edit: (request: CustomLaunchCreateRequestV4) => void): Buffer {
  const request = structuredClone(example);
  edit(request);
  request.projectMetadataHash = sha256Digest(canonicalJson(request.projectMetadata));
  return Buffer.from(JSON.stringify(request), 'utf8');
}

const mismatch = (launch: CustomLaunchResourceV4, bytes?: Buffer) => () => checkBoundMetadata(launch, bytes);

describe('checkBoundMetadata', () => {
  it('shows the metadata that hashes to projectMetadataHash; with the exact bytes, the image too', () => {
    const launch = authorized(exampleBytes);
    const alone = checkBoundMetadata(launch);
    expect(alone).toEqual({
      projectMetadataHash: example.projectMetadataHash,
      projectMetadata: example.projectMetadata,
      image: null,
      checkedAgainst: 'resource',
    });
    const withBytes = checkBoundMetadata(launch, exampleBytes);
    expect(withBytes.checkedAgainst).toBe('request-bytes');
    expect(withBytes.image?.mediaType).toBe(example.projectMetadataImageArtifact.mediaType);
    expect(withBytes.image?.bytes.equals(Buffer.from(example.projectMetadataImageArtifact.bytesBase64, 'base64'))).toBe(
      true,
    );
  });

  it.each<[string, (launch: CustomLaunchResourceV4) => void, RegExp]>([
    ['no bound metadata', (l) => Object.assign(l, { boundMetadata: null }), /carries no bound metadata/],
    [
      'a name that is not the bound one',
      (l) => {
        if (l.boundMetadata) l.boundMetadata.projectMetadata.name = 'Another Token';
      },
      /not its projectMetadataHash/,
    ],
    [
      'a website that is not the bound one',
      (l) => {
        if (l.boundMetadata) l.boundMetadata.projectMetadata.links.website = 'https://phish.example';
      },
      /not its projectMetadataHash/,
    ],
    [
      'another hash',
      (l) => {
        if (l.boundMetadata) l.boundMetadata.projectMetadataHash = `sha256:${'00'.repeat(32)}`;
      },
      /not its projectMetadataHash/,
    ],
  ])('refuses %s', (_name, edit, message) => {
    const launch = authorized(exampleBytes);
    edit(launch);
    expect(mismatch(launch)).toThrow(BoundMetadataMismatch);
    expect(mismatch(launch)).toThrow(message);
  });

  it("refuses request bytes that are not the launch's (requestDigest), even one byte apart", () => {
    const launch = authorized(exampleBytes);
    const spaced = Buffer.concat([exampleBytes, Buffer.from(' ')]);
    expect(mismatch(launch, spaced)).toThrow(/are not those of launch/);
    expect(
      mismatch(
        launch,
        variant((r) => (r.projectMetadata.symbol = 'OTHER')),
      ),
    ).toThrow(/are not those of launch/);
  });

  it('refuses bytes that bind other metadata than the resource shows, or an image other than the bound one', () => {
    // The resource shows the example's metadata, but the launch's bytes (requestDigest) bind another name.
    const renamed = variant((r) => (r.projectMetadata.name = 'Renamed Token'));
    const shown = authorized(renamed);
    shown.boundMetadata = {
      projectMetadataHash: example.projectMetadataHash,
      projectMetadata: example.projectMetadata,
    };
    expect(mismatch(shown, renamed)).toThrow(/bind other metadata than the resource shows/);
    // Bytes whose artifact is not the image the metadata names (the server refuses such a request at create).
    const otherImage = variant((r) => {
      r.projectMetadataImageArtifact.bytesBase64 = Buffer.from('not the image').toString('base64');
    });
    expect(mismatch(authorized(otherImage), otherImage)).toThrow(/is not the image the metadata binds/);
  });
});
