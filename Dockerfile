# proctor as a container: `proctor serve`, an A2A agent that evaluates other
# A2A agents, listening on 9009.
#
#   docker build -t proctor .
#   docker run --rm -p 9009:9009 -v proctor-data:/data proctor
#
# Arguments after the image name replace CMD and go to `proctor serve`, so the
# AgentBeats convention works as is:
#
#   docker run --rm -p 9009:9009 proctor --host 0.0.0.0 --port 9009 --card-url https://proctor.example.com/
#
# See deploy/README.md for the environment variables and docker compose.

# ---- build ------------------------------------------------------------------
FROM golang:1.26 AS build
WORKDIR /src

# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download

COPY . .
# A static binary (no cgo): it runs on an image without a C library.
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/proctor ./cmd/proctor
# The database directory, owned by distroless's nonroot user (65532), so that
# a named volume mounted on it starts out writable by proctor.
RUN mkdir -p /out/data && chown 65532:65532 /out/data

# ---- runtime ----------------------------------------------------------------
# Runtime image: distroless static, nonroot. Chosen over debian-slim because
# proctor serve connects to URLs that untrusted callers choose and parses
# their replies: the image holds nothing but the binary, CA certificates,
# tzdata and /etc/passwd (no shell, no package manager, no curl for an
# attacker to use, and few packages to track for CVEs), and the nonroot user
# is built in. The static binary needs nothing more.
#
# The cost is that there is no curl or wget for the HEALTHCHECK, so the
# binary checks itself: `proctor healthcheck --url URL` must GET URL and exit
# 0 on a 2xx answer, 1 otherwise (a few lines in cmd/proctor; it is not there
# yet: until it is, the container reports "unhealthy" but runs normally).
# That is also the more robust check: exec form with no shell, no second
# program whose version, TLS and proxy settings can drift from proctor's,
# and it probes the agent card, which every A2A server serves, so it
# does not depend on an extra health endpoint.
FROM gcr.io/distroless/static-debian12:nonroot

COPY --from=build /out/proctor /proctor
COPY --from=build --chown=65532:65532 /out/data /data

# Results database (bbolt): keep it on a volume so that evaluations survive
# the container. One proctor process per database.
ENV PROCTOR_DB=/data/proctor.db
VOLUME ["/data"]

USER nonroot:nonroot
EXPOSE 9009

HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/proctor", "healthcheck", "--url", "http://127.0.0.1:9009/healthz"]

ENTRYPOINT ["/proctor", "serve"]
CMD ["--host", "0.0.0.0", "--port", "9009"]
