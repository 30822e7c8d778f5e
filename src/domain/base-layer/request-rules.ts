import type { CustomLaunchCreateRequestV3 } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { baseLaunchIntentHashOf, baseProjectMetadataHashOf } from '../../core/base-graph.ts';
import { inspectBaseLayerImage } from '../../core/image.ts';
import { ApiError } from '../../errors/api-error.ts';
import { checkLaneEnvelope, imageRuleIssues, type RuleIssue, rejectRuleIssues } from '../lanes/request-rules.ts';

/** What the request rules read besides the request: deployment switches and the lane's capabilities. */
export interface BaseLayerRuleContext {
  /** Whether profile 3.4.0 is activated (V3_PROFILE_340_ACTIVE). */
  profile340Active: boolean;
  /** The EIP-3009 tokens this deployment accepts (capabilities fundingTokens). */
  fundingTokens: readonly string[];
  /** The one pinned solc long version (capabilities compilerVersion). */
  compilerVersion: string;
}

type Issue = RuleIssue;

/**
 * The server's limits of spec/schemas/custom-launch-create-request.v3.schema.json that its schema cannot state.
 * Project design: the rate cap is asserted again although the schema caps it.
 */
export const baseLayerRequestLimits = {
  requestBytes: 8_388_608,
  standardJsonBytes: 5_242_880,
  inlineSources: 2_048,
  descriptionMinBytes: 20,
  descriptionMaxBytes: 4_096,
  descriptionLettersOrDigits: 8,
  rateHundredthsBip: 100_000,
} as const;

/**
 * Request rules of the base-layer lane that need no chain, checked after schema validation by preflight and create.
 * A foreign controller wallet is 403 WALLET_MISMATCH, profile 3.4.0 before its activation is 409
 * PROFILE_NOT_ACTIVE, a body over the byte limit 413 PAYLOAD_TOO_LARGE; every other broken rule is listed in one
 * 400 INVALID_REQUEST. Nothing is persisted. The revision-2 compiler must be the pinned one too: this server has one
 * compiler and builds every unit with it.
 * Spec: the server rules in the `$comment` of spec/schemas/custom-launch-create-request.v3.schema.json, for
 * preflightCustomLaunchV3 and createCustomLaunchV3 (spec/openapi/paths/v3-*.yaml).
 */
export function checkBaseLayerRequestRules(
  principal: Principal,
  request: CustomLaunchCreateRequestV3,
  rawBytes: Buffer,
  context: BaseLayerRuleContext,
): void {
  checkLaneEnvelope(principal, request.launchWallet, rawBytes, baseLayerRequestLimits.requestBytes);
  if (request.profile.version === '3.4.0' && !context.profile340Active) {
    throw new ApiError('PROFILE_NOT_ACTIVE');
  }
  const issues: Issue[] = [
    ...metadataIssues(request),
    ...graphIssues(request),
    ...compilationIssues(request, context),
    ...fundingIssues(request, context),
  ];
  if (baseLaunchIntentHashOf(request) !== request.launchIntentHash) {
    issues.push({ location: '/launchIntentHash', message: 'does not match the canonical (RFC 8785) request' });
  }
  rejectRuleIssues(issues);
}

/**
 * The metadata binds by projectMetadataHash; a description is at most 4,096 UTF-8 bytes, and under 3.3.0 and 3.4.0
 * 20 to 4,096 bytes with at least 8 letters or digits; an image decodes as its declared type and its sha256 and
 * byteLength describe its bytes. Spec: ProjectMetadata, StrictDescription and Image of the V3 request schema.
 */
function metadataIssues(request: CustomLaunchCreateRequestV3): Issue[] {
  const metadata = request.projectMetadata;
  if (metadata === undefined) return [];
  const issues: Issue[] = [];
  const limits = baseLayerRequestLimits;
  const strict = request.profile.version === '3.3.0' || request.profile.version === '3.4.0';
  const length = Buffer.byteLength(metadata.description, 'utf8');
  const minimum = strict ? limits.descriptionMinBytes : 0;
  if (length < minimum || length > limits.descriptionMaxBytes) {
    issues.push({
      location: '/projectMetadata/description',
      message: `is ${length} UTF-8 bytes; it must be ${minimum} to ${limits.descriptionMaxBytes}`,
    });
  }
  const lettersOrDigits = metadata.description.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  if (strict && lettersOrDigits < limits.descriptionLettersOrDigits) {
    issues.push({
      location: '/projectMetadata/description',
      message: `has ${lettersOrDigits} letters or digits; it needs at least ${limits.descriptionLettersOrDigits}`,
    });
  }
  if (baseProjectMetadataHashOf(request) !== request.projectMetadataHash) {
    issues.push({
      location: '/projectMetadataHash',
      message: 'does not match the canonical (RFC 8785) projectMetadata',
    });
  }
  if (metadata.image) issues.push(...imageRuleIssues(metadata.image, '/projectMetadata/image', inspectBaseLayerImage));
  return issues;
}

/** The target counts of each graph kind: direct 3 to 16 with one initializer, router primitive 2 to 16 with none. */
const graphKinds = {
  direct: { minimum: 3, initializers: 1 },
  'router-primitive': { minimum: 2, initializers: 0 },
} as const;
const maxTargets = 16;
const minTargets340 = 4;

/**
 * Target ids are unique; one token, one hook; the kind's target count and initializer count; 3.4.0 takes 4 to 16
 * targets. Spec: Graph of the V3 request schema.
 */
function graphIssues(request: CustomLaunchCreateRequestV3): Issue[] {
  const issues: Issue[] = [];
  const { kind, targets } = request.graph;
  const ids = new Set<string>();
  targets.forEach((target, i) => {
    if (ids.has(target.targetId)) {
      issues.push({ location: `/graph/targets/${i}/targetId`, message: 'target ids must be unique' });
    }
    ids.add(target.targetId);
  });
  const minimum = request.profile.version === '3.4.0' ? minTargets340 : graphKinds[kind].minimum;
  if (targets.length < minimum || targets.length > maxTargets) {
    issues.push({
      location: '/graph/targets',
      message: `has ${targets.length} targets; a ${kind} graph of profile ${request.profile.version} takes ${minimum} to ${maxTargets}`,
    });
  }
  const count = (role: string) => targets.filter((t) => t.role === role).length;
  for (const [role, want] of [
    ['token', 1],
    ['hook', 1],
    ['initializer', graphKinds[kind].initializers],
  ] as const) {
    if (count(role) !== want) {
      issues.push({
        location: '/graph/targets',
        message: `a ${kind} graph has exactly ${want} ${role} target(s), not ${count(role)}`,
      });
    }
  }
  return issues;
}

/**
 * Unit ids are unique; every target names an existing unit and a source path of it; decoded standard JSON is at most
 * 5,242,880 bytes per unit and across units; at most 2,048 inline sources across units; the compiler is the pinned
 * one. Spec: Compilation, CompilationUnit and GraphTarget of the V3 request schema.
 */
function compilationIssues(request: CustomLaunchCreateRequestV3, context: BaseLayerRuleContext): Issue[] {
  const issues: Issue[] = [];
  const limits = baseLayerRequestLimits;
  const { compilerVersion, units } = request.compilation;
  if (compilerVersion !== context.compilerVersion) {
    issues.push({
      location: '/compilation/compilerVersion',
      message: `must be the pinned compiler ${context.compilerVersion} (revision ${request.profile.revision})`,
    });
  }
  const byId = new Map<string, (typeof units)[number]>();
  let totalBytes = 0;
  let totalSources = 0;
  units.forEach((unit, i) => {
    if (byId.has(unit.unitId))
      issues.push({ location: `/compilation/units/${i}/unitId`, message: 'unit ids must be unique' });
    else byId.set(unit.unitId, unit);
    const bytes = Buffer.byteLength(JSON.stringify(unit.standardJson), 'utf8');
    totalBytes += bytes;
    totalSources += Object.keys(unit.standardJson.sources).length;
    if (bytes > limits.standardJsonBytes) {
      issues.push({
        location: `/compilation/units/${i}/standardJson`,
        message: `is ${bytes} bytes of standard JSON; the limit per unit is ${limits.standardJsonBytes}`,
      });
    }
  });
  if (totalBytes > limits.standardJsonBytes) {
    issues.push({
      location: '/compilation/units',
      message: `hold ${totalBytes} bytes of standard JSON; the limit across units is ${limits.standardJsonBytes}`,
    });
  }
  if (totalSources > limits.inlineSources) {
    issues.push({
      location: '/compilation/units',
      message: `hold ${totalSources} inline sources; the limit across units is ${limits.inlineSources}`,
    });
  }
  request.graph.targets.forEach((target, i) => {
    const unit = byId.get(target.compilationUnitId);
    const sourcePath = target.contractName.slice(0, target.contractName.lastIndexOf(':'));
    if (!unit) {
      issues.push({ location: `/graph/targets/${i}/compilationUnitId`, message: 'names no compilation unit' });
    } else if (!Object.hasOwn(unit.standardJson.sources, sourcePath)) {
      issues.push({
        location: `/graph/targets/${i}/contractName`,
        message: `names ${sourcePath}, which is no source of unit ${unit.unitId}`,
      });
    }
  });
  return issues;
}

/**
 * An EIP-3009 funding token is one this deployment accepts; each applicant rate is at most 100,000 hundredths of a
 * bip in both modes. Spec: Eip3009Funding and ApplicantRates of the V3 request schema.
 */
function fundingIssues(request: CustomLaunchCreateRequestV3, context: BaseLayerRuleContext): Issue[] {
  const issues: Issue[] = [];
  const { funding, applicantRates } = request;
  if (funding.mode === 'eip3009') {
    const accepted = context.fundingTokens.map((t) => t.toLowerCase());
    if (!accepted.includes(funding.token.toLowerCase())) {
      issues.push({
        location: '/funding/token',
        message: 'is not an EIP-3009 token this deployment accepts (capabilities fundingTokens)',
      });
    }
  }
  for (const rate of ['buyRateHundredthsBip', 'sellRateHundredthsBip'] as const) {
    const value = applicantRates[rate];
    if (!Number.isInteger(value) || value < 0 || value > baseLayerRequestLimits.rateHundredthsBip) {
      issues.push({
        location: `/applicantRates/${rate}`,
        message: `is ${value}; ${applicantRates.mode} rates are 0 to ${baseLayerRequestLimits.rateHundredthsBip} hundredths of a bip`,
      });
    }
  }
  return issues;
}
