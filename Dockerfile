# Zimmer's one image: `zimmer serve` by default; `docker compose` also runs it as `zimmer worker`.
# Build: docker build -t zimmer .   Run everything: see docker-compose.yml.

# ---- build ------------------------------------------------------------------------------------
FROM golang:1.26 AS build
WORKDIR /src
# Module downloads get their own layer: they are re-fetched only when go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -o /out/zimmer ./cmd/zimmer

# ---- runtime ----------------------------------------------------------------------------------
# Debian rather than distroless: sessions run git (and, later, node-based agent CLIs) in here.
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates git curl \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 zimmer \
    && useradd --system --uid 10001 --gid zimmer --home-dir /data --shell /usr/sbin/nologin zimmer \
    && mkdir -p /data \
    && chown zimmer:zimmer /data
COPY --from=build /out/zimmer /usr/local/bin/zimmer
ENV ZIMMER_HTTP_ADDR=0.0.0.0:8080 \
    ZIMMER_WORKER_METRICS_ADDR=0.0.0.0:9091 \
    ZIMMER_DATA_DIR=/data \
    ZIMMER_LOG_FORMAT=json
USER zimmer:zimmer
WORKDIR /data
VOLUME /data
# 8080: serve (API, /up, /metrics); 9091: worker (/up, /metrics).
EXPOSE 8080 9091
ENTRYPOINT ["zimmer"]
CMD ["serve"]
