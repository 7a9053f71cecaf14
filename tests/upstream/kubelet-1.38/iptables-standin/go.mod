// A stand-in for sigs.k8s.io/iptables-wrappers v1.0.0, which the Go module proxy refuses to serve (403, "This
// module version is not available"); see README.md. Used only by tests/upstream/kubelet-1.38.
module sigs.k8s.io/iptables-wrappers

go 1.26.0
