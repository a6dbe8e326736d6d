# The whole site in one image: the server and the built public/ on a static, non-root image with nothing else in it
# (no shell, no package manager). README's "Deploying" section says how to run it; make e2e builds and runs it.
#
#   podman build -t twofold .                      # or: docker build -t twofold .
#   podman run -d -p 8080:8080 -v twofold-data:/data --env-file twofold.env twofold
#
# Build arguments:
#   BASE_URL  the site's public address for the build (default: baseURL of site/site.yaml); give the server the
#             same one at run time (-e BASE_URL=…), or set baseURL in site.yaml and neither is needed.
#   GO_IMAGE  the Go toolchain image of the build stage (make e2e passes one it makes itself, offline).
#   GOPROXY   where the build stage fetches Go modules (default: Go's own default, proxy.golang.org).
ARG GO_IMAGE=docker.io/library/golang:1.26.8-bookworm

FROM ${GO_IMAGE} AS build
WORKDIR /src
ARG GOPROXY
ARG BASE_URL
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
COPY . .
# The site is built here, from the same commit as the server. .git is not in the build context (.dockerignore), so
# a page without lastModified in its front matter gets its file's modification time.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -o /tmp/build-site ./build \
 && /tmp/build-site -q -out /out/public ${BASE_URL:+-base-url "$BASE_URL"} \
 && go build -trimpath -ldflags='-s -w' -o /out/twofold-server ./server \
 && go build -trimpath -ldflags='-s -w' -o /out/healthcheck ./deploy/healthcheck \
 && mkdir -p /out/etc /out/data \
 && echo 'twofold:x:65532:65532:twofold:/data:/nonexistent' > /out/etc/passwd \
 && echo 'twofold:x:65532:' > /out/etc/group

FROM scratch
# CA certificates for the server's own requests (the blog's feed, logos, SCREEN_LLM_URL).
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/etc/passwd /out/etc/group /etc/
COPY --from=build /out/twofold-server /out/healthcheck /
COPY --from=build /out/public /public
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
# ADDR listens on all interfaces inside the container (publish the port to choose who reaches it); the board's
# store is the volume /data. Secrets (ADMIN_TOKEN, CHALLENGE_SECRET, PROXY_SECRET) come with -e or --env-file.
ENV ADDR=:8080 PUBLIC_DIR=/public DATA_DIR=/data LOG_FORMAT=json
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=6s --start-period=10s --retries=3 CMD ["/healthcheck"]
# SIGTERM (docker stop, podman stop) lets requests in flight finish within SHUTDOWN_TIMEOUT (10s).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/twofold-server"]
