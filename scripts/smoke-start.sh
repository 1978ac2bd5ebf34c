#!/usr/bin/env bash
# Smoke check of the README's first command, `npm ci && npm start`, on a fresh clone of this
# repository's committed work, in a folder only its owner can enter, with the embedded defaults
# (embedded PostgreSQL from npm, the machine's Redis or a private one): waits for /health/ready, takes the printed sandbox key,
# runs one sandbox job to `completed` and downloads its PNG result. Prints one line
# "smoke: ..." with the outcome (and on failure the last 50 lines of the service's output);
# exits non-zero on failure. Nothing is left running and the temporary folder is removed.
#
# Settings (environment): SMOKE_READY_TIMEOUT (s, 180), SMOKE_JOB_TIMEOUT (s, 60),
# SMOKE_STOP_GRACE (s, 40: SIGTERM, then SIGKILL), SMOKE_KEEP=1 keeps the temporary folder.
set -uo pipefail

READY_TIMEOUT="${SMOKE_READY_TIMEOUT:-180}"
JOB_TIMEOUT="${SMOKE_JOB_TIMEOUT:-60}"
STOP_GRACE="${SMOKE_STOP_GRACE:-40}"

repo="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)" || { echo "smoke: not inside a git checkout"; exit 1; }
started=$SECONDS
tmp="$(mktemp -d "${TMPDIR:-/tmp}/imgjobs-smoke.XXXXXX")" || { echo "smoke: mktemp failed"; exit 1; }
# mktemp -d makes the folder mode 700, like a clone under /root: run as root, the embedded
# PostgreSQL's own system user cannot enter it, and `npm start` must cope (it keeps PostgreSQL's
# programs and data under /var/lib/image-jobs then; the data folder is removed at the end).
clone="$tmp/repo"
out="$tmp/service.log"
prefix="smoke-$$-$(date +%s)"
pgid=""
checker=""

say() { printf 'smoke: %s\n' "$*"; }
elapsed() { echo "$((SECONDS - started)) s"; }

# SIGTERM to the service's process group, SIGKILL to whatever is left after the grace period.
stop_service() {
  [ -n "$pgid" ] || return 0
  if kill -0 -- "-$pgid" 2>/dev/null; then
    kill -TERM -- "-$pgid" 2>/dev/null
    local deadline=$((SECONDS + STOP_GRACE))
    while kill -0 -- "-$pgid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.5; done
    if kill -0 -- "-$pgid" 2>/dev/null; then
      say "still running ${STOP_GRACE} s after SIGTERM; sending SIGKILL"
      kill -KILL -- "-$pgid" 2>/dev/null
      for _ in $(seq 1 20); do kill -0 -- "-$pgid" 2>/dev/null || break; sleep 0.25; done
    fi
  fi
  pgid=""
}

cleanup() {
  if [ -n "$checker" ]; then kill "$checker" 2>/dev/null; fi
  stop_service
  if command -v redis-cli >/dev/null 2>&1 && redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    redis-cli -h 127.0.0.1 -p 6379 --scan --pattern "${prefix}:*" 2>/dev/null \
      | xargs -r -n 500 redis-cli -h 127.0.0.1 -p 6379 del >/dev/null 2>&1
  fi
  local relocated
  relocated="$(grep -o '"databaseDir":"/var/lib/image-jobs/data/[0-9a-f]*"' "$out" 2>/dev/null | head -1 | cut -d'"' -f4)"
  if [ "${SMOKE_KEEP:-0}" = 1 ]; then say "kept $tmp"; else rm -rf "$tmp" ${relocated:+"$relocated"}; fi
}
trap cleanup EXIT
trap 'say "interrupted (SIGINT)"; exit 130' INT
trap 'say "interrupted (SIGTERM)"; exit 143' TERM

fail() {
  say "npm start on a fresh clone: FAILED after $(elapsed): $*"
  if [ -s "$out" ]; then
    echo "---- last 50 lines of the service output ----"
    tail -n 50 "$out"
    echo "---- end of the service output ----"
  fi
  exit 1
}

free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

say "cloning $repo into $clone"
git clone -q "$repo" "$clone" >"$out" 2>&1 || fail "git clone failed"
cd "$clone" || fail "cannot enter $clone"

say "npm ci"
npm ci --no-audit --no-fund >>"$out" 2>&1 || fail "npm ci failed"
say "npm ci done ($(elapsed))"

port="$(free_port)" && pg_port="$(free_port)" || fail "no free port"
[ "$port" != "$pg_port" ] || pg_port="$(free_port)"

say "npm start on port $port (embedded PostgreSQL on $pg_port, Redis key prefix $prefix)"
: >"$out"
# The README's command with the embedded defaults: no DATABASE_URL or REDIS_URL, and nothing
# else of the caller's settings that would point the service elsewhere. Its own process group
# (setsid; a background job of this non-interactive shell is no group leader, so setsid does not
# fork and $! is the group id), so that stopping it stops npm, node, PostgreSQL and Redis.
env -u DATABASE_URL -u REDIS_URL -u DATA_DIR -u STORAGE_DIR -u PUBLIC_BASE_URL -u ADMIN_TOKEN \
  -u ROLE -u API_PROCESSES \
  PORT="$port" EMBEDDED_POSTGRES_PORT="$pg_port" REDIS_KEY_PREFIX="$prefix" LOG_LEVEL=info \
  setsid npm start </dev/null >>"$out" 2>&1 &
pgid=$!
actual="$(ps -o pgid= -p "$pgid" 2>/dev/null | tr -d ' ')"
if [ -n "$actual" ] && [ "$actual" != "$pgid" ]; then pgid="$actual"; fi
base="http://127.0.0.1:$port"

# Everything HTTP is done by node, which is there wherever the service runs.
# In the background and waited for, so that a signal to this script is handled at once.
node - "$base" "$READY_TIMEOUT" "$JOB_TIMEOUT" "$out" "$pgid" <<'NODE' &
const fs = require('fs');
const path = require('path');
const [base, readyTimeout, jobTimeout, outFile, pgid] = process.argv.slice(2);
const reasonFile = path.join(path.dirname(outFile), 'reason');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const alive = () => { try { process.kill(-Number(pgid), 0); return true; } catch { return false; } };
const bail = (reason) => { fs.writeFileSync(reasonFile, reason); process.exit(1); };
const log = (line) => console.log(`smoke: ${line}`);
const t0 = Date.now();
const secs = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

async function get(url, headers = {}) {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

(async () => {
  // 1. Ready: /health/ready answers 200.
  const readyBy = Date.now() + Number(readyTimeout) * 1000;
  let last = 'no answer';
  for (;;) {
    if (!alive()) bail(`npm start exited before /health/ready answered 200 (last: ${last})`);
    try {
      const r = await get(`${base}/health/ready`);
      if (r.status === 200) break;
      last = `HTTP ${r.status}`;
    } catch (e) {
      last = e.cause?.code ?? e.message;
    }
    if (Date.now() > readyBy) bail(`/health/ready did not answer 200 within ${readyTimeout} s (last: ${last})`);
    await sleep(1000);
  }
  log(`ready after ${secs()} (build, embedded PostgreSQL, migrations)`);

  // 2. The printed sandbox key (printed right after the API listens).
  let key;
  for (let i = 0; i < 30 && !key; i++) {
    key = /Sandbox key:\s+(sk_sandbox_\S+)/.exec(fs.readFileSync(outFile, 'utf8'))?.[1];
    if (!key) await sleep(500);
  }
  if (!key) bail('no "Sandbox key:" line in the output of npm start');

  // 3. A sandbox job.
  const auth = { Authorization: `Bearer ${key}` };
  const create = await fetch(`${base}/api/v1/image/edit`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': `smoke-${crypto.randomUUID()}` },
    body: JSON.stringify({ input: [{ image_url: 'https://images.example.com/a.jpg', external_id: 'smoke-1' }] }),
    signal: AbortSignal.timeout(10_000),
  });
  const created = await create.text();
  if (create.status !== 202) bail(`POST /api/v1/image/edit answered ${create.status}: ${created.slice(0, 300)}`);
  const jobId = JSON.parse(created).job.id;

  // 4. Poll until completed.
  const doneBy = Date.now() + Number(jobTimeout) * 1000;
  let job;
  for (;;) {
    const r = await get(`${base}/api/v1/jobs/${jobId}`, auth);
    if (r.status !== 200) bail(`GET /api/v1/jobs/${jobId} answered ${r.status}: ${r.body.toString().slice(0, 300)}`);
    job = JSON.parse(r.body.toString());
    if (job.job.status === 'completed') break;
    if (['failed', 'cancelled', 'partially_completed'].includes(job.job.status)) {
      bail(`job ${jobId} ended ${job.job.status}: ${JSON.stringify(job.results).slice(0, 300)}`);
    }
    if (Date.now() > doneBy) bail(`job ${jobId} not completed within ${jobTimeout} s (status ${job.job.status})`);
    await sleep(1000);
  }

  // 5. Its result is a PNG.
  const url = job.results?.[0]?.result_url;
  if (!url) bail(`job ${jobId} completed without result_url`);
  const image = await get(url);
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (image.status !== 200) bail(`result_url answered ${image.status}`);
  if (!image.body.subarray(0, 8).equals(png)) bail(`result_url is not a PNG (first bytes ${image.body.subarray(0, 8).toString('hex')})`);
  log(`job ${jobId} completed and its ${image.body.length}-byte PNG downloaded (${secs()} after start)`);
})().catch((e) => bail(`unexpected error: ${e.stack ?? e}`));
NODE
checker=$!
wait "$checker" || fail "$(cat "$tmp/reason" 2>/dev/null || echo "the check failed")"
checker=""

# A clean stop is part of the command's contract: SIGTERM ends every process of the group.
stop_deadline=$((SECONDS + STOP_GRACE))
kill -TERM -- "-$pgid" 2>/dev/null
while kill -0 -- "-$pgid" 2>/dev/null && [ "$SECONDS" -lt "$stop_deadline" ]; do sleep 0.5; done
if kill -0 -- "-$pgid" 2>/dev/null; then
  fail "processes still running ${STOP_GRACE} s after SIGTERM"
fi
pgid=""

# The release it ran on, from its start line: Node.js 24 that `npm ci` installed for the project
# (or the system's, where that is 22 or later), never an older system Node.js.
node_version="$(grep -o '"node":"v[0-9.]*","msg":"starting"' "$out" | head -1 | cut -d'"' -f4)"
[ -n "$node_version" ] || fail "no start line naming the Node.js release"
[ "${node_version#v}" != "$node_version" ] && [ "$(echo "${node_version#v}" | cut -d. -f1)" -ge 22 ] \
  || fail "it ran on Node.js $node_version; 22 or later is needed"
# No runtime warning (a deprecation, an experimental feature, a dependency's notice) from start to stop.
warnings="$(grep -E '^\(node:[0-9]+\) (\[[A-Z0-9]+\] )?[A-Za-z]*Warning' "$out")"
[ -z "$warnings" ] || fail "runtime warnings: $warnings"
say "npm start on a fresh clone: ok on Node.js $node_version, no runtime warning ($(elapsed) in all)"
