# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A real Kubernetes control plane on 127.0.0.1 for the tests.

etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok (fake nodes whose pods become
Running without a kubelet), built from their Go modules by ``scripts/upstream.sh``, started in a private
directory on free ports and stopped by their process ids. See ``controlplane.py`` and README.md.
"""
