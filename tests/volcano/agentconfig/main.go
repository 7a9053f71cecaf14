// Copyright (c) 2026 numaops.colocation contributors
// GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// agentconfig reads the colocation-config document of a rendered volcano-agent-configuration
// ConfigMap (one file per argument, the value of data["colocation-config"]) with Volcano's own agent
// configuration types (volcano.sh/volcano/pkg/agent/config/api, the version pinned in go.mod) and
// prints one JSON report per file:
//
//   - decode_error: what encoding/json says when the agent unmarshals the document
//     (pkg/agent/config/configmgr.go updateConfigMap does exactly json.Unmarshal into VolcanoAgentConfig);
//   - unknown_fields: what a strict decoder refuses (keys the agent silently ignores: typos);
//   - would_rewrite / rewrite_reason: at start the agent updates its ConfigMap when globalConfig has no
//     overSubscriptionConfig or no evictingConfig (updateConfigMap; it fails on a nil globalConfig);
//   - validation_errors: ColocationConfig.Validate() (pkg/agent/config/api/validate.go) of globalConfig
//     merged over the agent's defaults, and of every nodesConfig entry merged over that, the way
//     pkg/agent/config/utils MergerCfg merges them (mergo, override, nil pointers keep the default);
//   - memory_qos_v2 / memory_qos_v1: the effective enable flags after that merge.
//
// Exit status 0 when every file decodes; 1 otherwise. Whether the agent would rewrite or refuse is in
// the report, for the caller (tests/unit/roles) to assert.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"

	"github.com/imdario/mergo"

	"volcano.sh/volcano/pkg/agent/config/api"
)

type report struct {
	File             string   `json:"file"`
	DecodeError      string   `json:"decode_error,omitempty"`
	UnknownFields    string   `json:"unknown_fields,omitempty"`
	WouldRewrite     bool     `json:"would_rewrite"`
	RewriteReason    []string `json:"rewrite_reason"`
	ValidationErrors []string `json:"validation_errors"`
	MemoryQosV2      *bool    `json:"memory_qos_v2"`
	MemoryQosV1      *bool    `json:"memory_qos_v1"`
	NodesConfigs     int      `json:"nodes_configs"`
}

func boolp(v bool) *bool { return &v }
func intp(v int) *int    { return &v }
func strp(v string) *string {
	return &v
}

// defaults are the values of Volcano's DefaultColocationConfig (pkg/agent/config/utils/utils.go); that
// package cannot be imported here (it pulls volcano.sh/apis, which the module proxy does not serve).
func defaults() *api.ColocationConfig {
	return &api.ColocationConfig{
		NodeLabelConfig:   &api.NodeLabelConfig{NodeColocationEnable: boolp(true), NodeOverSubscriptionEnable: boolp(false)},
		CPUQosConfig:      &api.CPUQos{Enable: boolp(false)},
		CPUBurstConfig:    &api.CPUBurst{Enable: boolp(false)},
		MemoryQosConfig:   &api.MemoryQos{Enable: boolp(false)},
		MemoryQosV2Config: &api.MemoryQos{Enable: boolp(false)},
		NetworkQosConfig: &api.NetworkQos{Enable: boolp(false), OnlineBandwidthWatermarkPercent: intp(80),
			OfflineLowBandwidthPercent: intp(10), OfflineHighBandwidthPercent: intp(40), QoSCheckInterval: intp(10000000)},
		OverSubscriptionConfig: &api.OverSubscription{Enable: boolp(true), OverSubscriptionTypes: strp("cpu,memory")},
		EvictingConfig: &api.Evicting{EvictingCPUHighWatermark: intp(80), EvictingMemoryHighWatermark: intp(60),
			EvictingCPULowWatermark: intp(30), EvictingMemoryLowWatermark: intp(30)},
		CPUThrottlingConfig: &api.CPUThrottling{Enable: boolp(false)},
	}
}

// keepDefault: a nil pointer to a non-struct in the source leaves the destination alone (the agent's
// nullTransformer for mergo).
type keepDefault struct{}

func (keepDefault) Transformer(typ reflect.Type) func(dst, src reflect.Value) error {
	if typ.Kind() == reflect.Pointer && typ.Elem().Kind() != reflect.Struct {
		return func(dst, src reflect.Value) error {
			if dst.CanSet() && !src.IsNil() {
				dst.Set(src)
			}
			return nil
		}
	}
	return nil
}

func merge(dst, src *api.ColocationConfig) error {
	return mergo.Merge(dst, src, mergo.WithOverride, mergo.WithTransformers(keepDefault{}))
}

func check(path string) report {
	r := report{File: path, RewriteReason: []string{}, ValidationErrors: []string{}}
	data, err := os.ReadFile(path)
	if err != nil {
		r.DecodeError = err.Error()
		return r
	}
	cfg := &api.VolcanoAgentConfig{}
	if err := json.Unmarshal(data, cfg); err != nil {
		r.DecodeError = err.Error()
		return r
	}
	strict := json.NewDecoder(bytes.NewReader(data))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&api.VolcanoAgentConfig{}); err != nil {
		r.UnknownFields = err.Error()
	}
	if cfg.GlobalConfig == nil {
		r.DecodeError = "globalConfig is missing: the agent refuses the ConfigMap (empty global config)"
		return r
	}
	if cfg.GlobalConfig.OverSubscriptionConfig == nil {
		r.RewriteReason = append(r.RewriteReason, "globalConfig.overSubscriptionConfig is missing")
	}
	if cfg.GlobalConfig.EvictingConfig == nil {
		r.RewriteReason = append(r.RewriteReason, "globalConfig.evictingConfig is missing")
	}
	r.WouldRewrite = len(r.RewriteReason) > 0
	merged := defaults()
	if err := merge(merged, cfg.GlobalConfig); err != nil {
		r.ValidationErrors = append(r.ValidationErrors, "merge globalConfig: "+err.Error())
		return r
	}
	for _, e := range merged.Validate() {
		r.ValidationErrors = append(r.ValidationErrors, "globalConfig: "+e.Error())
	}
	r.MemoryQosV2 = merged.MemoryQosV2Config.Enable
	r.MemoryQosV1 = merged.MemoryQosConfig.Enable
	r.NodesConfigs = len(cfg.NodesConfig)
	for i := range cfg.NodesConfig {
		node := defaults()
		_ = merge(node, cfg.GlobalConfig)
		if err := merge(node, &cfg.NodesConfig[i].ColocationConfig); err != nil {
			r.ValidationErrors = append(r.ValidationErrors, fmt.Sprintf("nodesConfig[%d]: merge: %v", i, err))
			continue
		}
		for _, e := range node.Validate() {
			r.ValidationErrors = append(r.ValidationErrors, fmt.Sprintf("nodesConfig[%d]: %v", i, e))
		}
	}
	return r
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: agentconfig FILE... (each file: the colocation-config JSON document)")
		os.Exit(2)
	}
	status := 0
	out := json.NewEncoder(os.Stdout)
	for _, path := range os.Args[1:] {
		r := check(path)
		if r.DecodeError != "" {
			status = 1
		}
		if err := out.Encode(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(status)
}
