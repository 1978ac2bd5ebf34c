import { Platform1764000000000 } from './migrations/1764000000000-platform';
import { ServiceSecrets1764000000001 } from './migrations/1764000000001-service-secrets';
import { Jobs1764000000002 } from './migrations/1764000000002-jobs';
import { Webhooks1764000000003 } from './migrations/1764000000003-webhooks';
import { OperatorIdempotency1764000000004 } from './migrations/1764000000004-operator-idempotency';
import { CapacityGroups1764000000005 } from './migrations/1764000000005-capacity-groups';
import { ResultFileRetention1764000000006 } from './migrations/1764000000006-result-file-retention';
import { ResultHintsAndUncertainty1764000000007 } from './migrations/1764000000007-result-hints-and-uncertainty';
import { Uploads1764000000008 } from './migrations/1764000000008-uploads';
import { UploadStates1764000000009 } from './migrations/1764000000009-upload-states';
import { ResultSegmentation1764000000010 } from './migrations/1764000000010-result-segmentation';
import { SettledResultsByAccount1764000000011 } from './migrations/1764000000011-settled-results-by-account';
import { ResultSourcePreviews1764000000012 } from './migrations/1764000000012-result-source-previews';
import { ResultReviews1764000000013 } from './migrations/1764000000013-result-reviews';
import { OperatorLookups1764000000014 } from './migrations/1764000000014-operator-lookups';

/** Listed, not globbed, so the same list works from `src/` under jest and from `dist/`. */
export const MIGRATIONS = [
  Platform1764000000000,
  ServiceSecrets1764000000001,
  Jobs1764000000002,
  Webhooks1764000000003,
  OperatorIdempotency1764000000004,
  CapacityGroups1764000000005,
  ResultFileRetention1764000000006,
  ResultHintsAndUncertainty1764000000007,
  Uploads1764000000008,
  UploadStates1764000000009,
  ResultSegmentation1764000000010,
  SettledResultsByAccount1764000000011,
  ResultSourcePreviews1764000000012,
  ResultReviews1764000000013,
  OperatorLookups1764000000014,
];
