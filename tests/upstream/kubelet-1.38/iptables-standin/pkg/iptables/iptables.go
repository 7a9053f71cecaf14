// Package iptables is a stand-in for sigs.k8s.io/iptables-wrappers/pkg/iptables v1.0.0 (see ../../README.md):
// the types and calls the kubelet uses, on a host where no iptables is found.
package iptables

import (
	"context"
	"time"
)

// Chain is an iptables chain name.
type Chain string

// Table is an iptables table name.
type Table string

// Protocol is the IP family an iptables client works on.
type Protocol string

// RulePosition says where EnsureRule puts a rule.
type RulePosition string

// Mode says which iptables binaries NewBestEffort looks for.
type Mode string

const (
	TableNAT    Table = "nat"
	TableFilter Table = "filter"
	TableMangle Table = "mangle"

	ChainInput  Chain = "INPUT"
	ChainOutput Chain = "OUTPUT"

	ProtocolIPv4 Protocol = "IPv4"
	ProtocolIPv6 Protocol = "IPv6"

	Prepend RulePosition = "-I"
	Append  RulePosition = "-A"

	// UseInstalledMode: the iptables mode the host has installed.
	UseInstalledMode Mode = "installed"
)

// Interface is the part of the iptables client the kubelet calls.
type Interface interface {
	EnsureChain(ctx context.Context, table Table, chain Chain) (bool, error)
	EnsureRule(ctx context.Context, position RulePosition, table Table, chain Chain, args ...string) (bool, error)
	Protocol() Protocol
	IsIPv6() bool
	Monitor(ctx context.Context, canary Chain, tables []Table, reloadFunc func(), interval time.Duration)
}

// NewBestEffort returns an iptables client for each IP family whose iptables works on the host: none here.
func NewBestEffort(_ context.Context, _ Mode) map[Protocol]Interface {
	return map[Protocol]Interface{}
}
