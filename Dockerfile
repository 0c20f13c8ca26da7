# kube-lifecycle-exporter container image.
#
#   docker build -t kube-lifecycle-exporter:0.1.0 .
#
# Build stage: the release binary, from the locked dependency set. Only what the
# build reads is copied (tests/artifacts/dockerfile.rs builds from exactly these paths).
FROM docker.io/library/rust:1.95-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src/ src/
COPY core/ core/
COPY docs/runbooks/ docs/runbooks/
# The /runbooks index reads each alert's severity and summary from the rule pack.
COPY alerts/kube-lifecycle.rules.yaml alerts/kube-lifecycle.rules.yaml
# Workspace members: cargo reads their manifests even when building another member.
COPY fake-apiserver/ fake-apiserver/
COPY bench/ bench/
COPY xtask/ xtask/
RUN cargo build --release --locked --bin kube-lifecycle-exporter

# Runtime stage: distroless "cc" (glibc and libgcc, no shell, no package manager),
# the Debian 12 release the build stage links against. The binary needs nothing
# else: TLS is rustls, certificates come from the cluster's CA bundle.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/kube-lifecycle-exporter /usr/local/bin/kube-lifecycle-exporter
# distroless "nonroot": uid and gid 65532. Numeric, so runAsNonRoot can verify it.
USER 65532:65532
EXPOSE 9096
ENTRYPOINT ["/usr/local/bin/kube-lifecycle-exporter"]
CMD ["serve", "--listen=0.0.0.0:9096"]
