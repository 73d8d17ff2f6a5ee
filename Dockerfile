# Clarify as a container: a static binary on distroless, run as a non-root
# user, with a read-only root filesystem; state lives in the /data volume.
#
#   docker build -t clarify .
#   docker run --read-only -v clarify-data:/data -p 8080:8080 \
#     -e SLACK_BOT_TOKEN -e SLACK_APP_TOKEN clarify
#
# See the README, "Container".

FROM golang:1.26 AS build
WORKDIR /src
# Modules first, so that a change to the code does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static (no libc in the runtime image), and paths of this machine left out.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/bot ./bot \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/bot /bot
# An empty /data owned by the runtime user, so a new named volume inherits
# that owner and the bot can write its bbolt files and schema snapshots.
COPY --from=build --chown=65532:65532 /out/data /data
# HOME too, so nothing falls back to an unwritable home directory.
ENV CLARIFY_DATA_DIR=/data HOME=/data
VOLUME ["/data"]
EXPOSE 8080
USER 65532:65532
# distroless has no curl: the binary checks its own /healthz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
  CMD ["/bot", "healthcheck", "--url", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/bot"]
CMD ["serve"]
