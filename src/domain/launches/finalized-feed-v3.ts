import type { CustomLaunchFinalizedListV3 } from '../../../generated/types/service.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import type { Db } from '../../store/db.ts';
import { newestFirstPage } from './finalized-feed.ts';

/** The base-layer finalized feed, generated from spec/schemas/custom-launch-finalized-list.v3.schema.json. */
type Diagnostic = CustomLaunchFinalizedListV3['quality']['diagnostics'][number];

/**
 * listFinalizedCustomLaunchesV3: one page of the base-layer finalized feed with its `quality` block
 * (spec/openapi/paths/v3-finalized-custom-launches.yaml). Project design: newest first; a page
 * reads at most `limit` stored rows; a row that is not valid JSON or not a valid item is quarantined, never
 * published, and named by a FINALIZED_ROW_QUARANTINED diagnostic with its index among the page's rows. A page with
 * a quarantined row is `partial`: not a complete inventory.
 */
export function listFinalizedV3(db: Db, limit: number, cursor: string | undefined): CustomLaunchFinalizedListV3 {
  const { rows: page, nextCursor } = newestFirstPage(
    db,
    { table: 'v3_finalized_feed', listName: 'v3-finalized' },
    limit,
    cursor,
  );
  const launches: CustomLaunchFinalizedListV3['launches'] = [];
  const diagnostics: Diagnostic[] = [];
  page.forEach((row, rowIndex) => {
    let item: unknown;
    try {
      item = JSON.parse(row.item_json);
    } catch {
      diagnostics.push({ rowIndex, code: 'FINALIZED_ROW_QUARANTINED', message: 'The stored row is not JSON.' });
      return;
    }
    if (schemaProblems('custom-launch-finalized-list.v3.schema.json#/$defs/FinalizedLaunch', item).length > 0) {
      diagnostics.push({
        rowIndex,
        code: 'FINALIZED_ROW_QUARANTINED',
        message: 'The stored row is not a valid finalized launch item; it is withheld from this page.',
      });
      return;
    }
    launches.push(item as CustomLaunchFinalizedListV3['launches'][number]);
  });
  return {
    launches,
    quality: {
      status: diagnostics.length === 0 ? 'complete' : 'partial',
      sourceRowCount: page.length,
      publishedRowCount: launches.length,
      quarantinedRowCount: diagnostics.length,
      diagnostics,
    },
    nextCursor,
  } as CustomLaunchFinalizedListV3;
}
