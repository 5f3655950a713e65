# betplan in a container: a static binary on a distroless base that runs as
# a non-root user and carries the CA certificates (and zone data) betplan
# needs to reach the service over https.
#
#   docker build -t betplan \
#     --build-arg VERSION=$(git describe --tags) \
#     --build-arg COMMIT=$(git rev-parse HEAD) \
#     --build-arg DATE=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ) .
#   docker run --rm -v "$PWD:/work" betplan validate plans/
#
# The build flags are the release's (see .goreleaser.yaml): static,
# -trimpath, and the commit's time as the build time.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
ARG DATE=unknown
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X github.com/betplan/betplan/cli.version=${VERSION} -X github.com/betplan/betplan/cli.commit=${COMMIT} -X github.com/betplan/betplan/cli.date=${DATE}" \
    -o /out/betplan .

# static-debian12 holds /etc/ssl/certs/ca-certificates.crt, tzdata and
# /etc/passwd; :nonroot runs as uid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/betplan /usr/local/bin/betplan
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/betplan"]
CMD ["help"]
