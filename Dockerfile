# syntax=docker/dockerfile:1
# toolrun's image: the compiled build and production dependencies only, run as a non-root user.
# The same steps as CI (.ci/run): `npm ci`, `npm run build`, then scripts/stage-production.sh and
# `npm ci --omit=dev --omit=optional`, which test/system/production.test.ts runs and checks.
# One image for every role; the command picks it (compose.yaml):
#   node dist/src/bin/api.js          API (default)
#   node dist/src/bin/worker.js       worker
#   node dist/scripts/migrate.js deploy   migrations (run once per release, before the new version)
ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
# Installing runs `prisma generate` (postinstall), which needs the schema.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && sh scripts/stage-production.sh /app

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000
WORKDIR /app
COPY --from=build /app ./
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
# TOOLRUN_DATA_DIR (.data): without SECRET_KEYS the key that encrypts secrets at rest is kept there,
# made on first use, so the non-root user must be able to write it (compose.yaml mounts a volume
# there that the API and the workers share).
RUN mkdir -p .data && chown node:node .data
USER node
EXPOSE 4000
# node itself is PID 1 and handles SIGTERM (drains, then exits); it starts no child processes.
CMD ["node", "dist/src/bin/api.js"]
