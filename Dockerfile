# syntax=docker/dockerfile:1
# One image per service, all from this file at the repository root (services import libs/):
#   docker build --build-arg SERVICE=gateway -t commodity-data/gateway:0.1.0 .
# SERVICE is one of ingest, projector, query, gateway, dashboard, notifier. TypeScript runs natively on
# Node 24 (type stripping), so there is no compile step: the image holds the workspace sources and
# production deps.
# The base is pinned by version and digest (node 24.21.0 = .nvmrc, Debian bookworm slim).
ARG NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:0e0ff40c39bc087845bfb27465a0df4ea419520094bc35842ff83dd8cbe6f9b6

# --- manifests: only the package.json files, so the dependency layer is rebuilt only when they change
FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
COPY libs libs
COPY services services
RUN find libs services -type f ! -name package.json -delete && find libs services -type d -empty -delete

# --- deps: production dependencies of every workspace (npm ci --omit=dev)
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NODE_ENV=production npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
COPY --from=manifests /app/libs libs
COPY --from=manifests /app/services services
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime: sources + deps, owned by root and read-only to the non-root `node` user (uid 1000)
FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
WORKDIR /app
ENV NODE_ENV=production SERVICE=${SERVICE}
COPY --from=deps /app/node_modules node_modules
COPY package.json ./
COPY libs libs
COPY services services
# Each service's long-running process is services/<name>/src/main.ts, except ingest's: it has none, its
# CLI (cli.ts) runs as jobs (the chart's CronJobs), so the image runs the CLI by default.
RUN test -n "${SERVICE}" && entry="services/${SERVICE}/src/main.ts" \
  && if [ "${SERVICE}" = ingest ]; then entry="services/ingest/src/cli.ts"; fi \
  && test -f "${entry}" && ln -s "${entry}" main.ts
USER 1000:1000
# gateway 8080, query 8081, projector 8082, accounts (admin API) 8083, dashboard 8084, notifier 8085 (health, metrics)
EXPOSE 8080 8081 8082 8083 8084 8085
# The chart sets the command explicitly; this default runs the service the image was built for.
ENTRYPOINT ["node", "--disable-warning=ExperimentalWarning"]
CMD ["main.ts"]
