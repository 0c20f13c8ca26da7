//! The registry host of an image reference, normalised as the container
//! runtimes do (github.com/distribution/reference `splitDockerDomain`): the first
//! path component is a registry only if it has a `.` or `:`, is `localhost`, or
//! has upper-case letters; otherwise the image is on Docker Hub.

pub(super) const DOCKER_HUB: &str = "docker.io";

pub(super) fn registry_host(image: &str) -> String {
    let image = image.trim();
    if image.is_empty() {
        return String::new();
    }
    let name = image.split('@').next().unwrap_or(image);
    let Some((first, _rest)) = name.split_once('/') else {
        return DOCKER_HUB.to_string();
    };
    let is_registry = first.contains(['.', ':'])
        || first == "localhost"
        || first.chars().any(|c| c.is_ascii_uppercase());
    match first {
        _ if !is_registry => DOCKER_HUB.to_string(),
        "index.docker.io" | "registry-1.docker.io" => DOCKER_HUB.to_string(),
        _ => first.to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registries_are_normalised_like_the_runtime_does() {
        let cases = [
            ("nginx", "docker.io"),
            ("nginx:1.25", "docker.io"),
            ("library/nginx@sha256:abc", "docker.io"),
            (
                "index.docker.io/jaegertracing/all-in-one@sha256:8d0b",
                "docker.io",
            ),
            ("quay.io/prometheus/node-exporter:v1.8.0", "quay.io"),
            (
                "172.27.129.211:35000/filebeat-with-module:6.0.0",
                "172.27.129.211:35000",
            ),
            (
                "docker02:35000/env/develop/prophet/app/pms.tar:develop-175",
                "docker02:35000",
            ),
            ("localhost/app", "localhost"),
            (
                "123456789012.dkr.ecr.eu-west-1.amazonaws.com/api:1",
                "123456789012.dkr.ecr.eu-west-1.amazonaws.com",
            ),
            ("", ""),
        ];
        for (image, want) in cases {
            assert_eq!(registry_host(image), want, "{image}");
        }
    }
}
