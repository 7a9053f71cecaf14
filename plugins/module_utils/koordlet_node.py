# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What koordlet (Koordinator's node agent) needs of a node, decided as koordlet's own code decides it.

Two parts:

* ``probe_paths(asked)``: the files node_prep's pre-flight looks at for the koordlet features asked (existence, and
  the text of the small ones), in its one read of the node (node_preflight's ``probe_files``);
* ``verdict(probes, asked, host)``: per feature, whether koordlet can do it on this node and, when not, what to
  change; and the kubelet-restart hazard: a QoS-class cgroup with ``cpu.idle`` set to 1, which makes the kubelet
  fail to start (it writes the CPU weight of those cgroups when it starts, and the kernel refuses a weight on an
  idle group);
* ``settle(verdict, kubelet, host)``: the features judged on the kubelet configuration node_prep's plan leaves
  (cpuset: the CPU manager policy Koordinator advises for LSR/LSE pods).

Sources (Koordinator's repository, koordinator-sh/koordinator; the files named with each rule; the kubelet and the
kernel where they decide): docs/koordinator.md.

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.numaops.colocation.plugins.module_utils.values import unique as _unique

# The features a user says koordlet runs with, each as its NodeSLO / koordlet setting names it.
FEATURES = ('memory_qos', 'cpu_idle', 'core_sched', 'group_identity', 'psi', 'resctrl', 'nri', 'cpuset')
TITLES = {
    'memory_qos': 'memory QoS (resourceQOSStrategy.*.memoryQOS)',
    'cpu_idle': 'cpu.idle (resourceQOSStrategy.*.cpuQOS.schedIdle)',
    'core_sched': 'core scheduling (policies.cpuPolicy: coreSched)',
    'group_identity': 'group identity (policies.cpuPolicy: groupIdentity)',
    'psi': 'PSI (cpu.pressure, memory.pressure, io.pressure)',
    'resctrl': 'resctrl (resourceQOSStrategy.*.resctrlQOS: L3 cache and memory bandwidth)',
    'nri': "koordlet's NRI mode (runtime hooks over NRI)",
    'cpuset': "LSR/LSE CPU binding (koord-scheduler's CPUs, applied by koordlet's cpuset hook)",
}
# the features judged after node_prep's plan, on the kubelet configuration that plan leaves (settle())
SETTLED_AFTER_PLAN = ('cpuset',)
# The upstream Linux release that added each feature's interface (the kernel's own history; koordlet checks files,
# never a version number, so these only say which kernel to move to).
KERNEL = {
    'memory_qos': '4.18 (memory.min)',
    'cpu_idle': '5.15',
    'core_sched': '5.14, built with CONFIG_SCHED_CORE',
    'psi': '4.20, built with CONFIG_PSI (psi=1 on the command line when CONFIG_PSI_DEFAULT_DISABLED)',
    'resctrl': '4.10, built with CONFIG_X86_CPU_RESCTRL',
}
ASKED_DEFAULTS = {'features': [], 'cgroup_root': '/sys/fs/cgroup', 'proc_root': '/proc', 'sys_root': '/sys',
                  'nri_socket': '/var/run/nri/nri.sock', 'nri_enabled': None, 'kubelet_enabled': True}
# The kubepods cgroup and the two QoS-class cgroups the kubelet writes the CPU weight of when it starts, per cgroup
# driver (pkg/koordlet/util/system/cgroup_driver.go: KubeRootNameSystemd, KubeBesteffortNameSystemd, ...).
QOS_DIRS = {
    'systemd': ('kubepods.slice', 'kubepods.slice/kubepods-burstable.slice',
                'kubepods.slice/kubepods-besteffort.slice'),
    'cgroupfs': ('kubepods', 'kubepods/burstable', 'kubepods/besteffort'),
}
# the largest text kept of a probed file (/proc/cpuinfo of a large node is read whole: its flags are per CPU)
MAX_PROBE_BYTES = 4 * 1024 * 1024
_RDT = re.compile(r'(?:^|\s)rdt=(\S*)')


def _asked(asked):
    values = dict(ASKED_DEFAULTS)
    values.update(dict((key, value) for key, value in (asked or {}).items() if key in ASKED_DEFAULTS))
    return values


def _kubepods(asked):
    return [asked['cgroup_root'].rstrip('/') + '/' + QOS_DIRS[driver][0] for driver in ('systemd', 'cgroupfs')]


def _paths(asked):
    """{name: path or [paths]} of everything a verdict can look at."""
    cg = asked['cgroup_root'].rstrip('/')
    proc = asked['proc_root'].rstrip('/')
    sys_root = asked['sys_root'].rstrip('/')
    kubepods = _kubepods(asked)
    return {
        # cgroup v2, then the cpu controller's hierarchy of cgroup v1 (cpu, usually a link to cpu,cpuacct)
        'hazard': [cg + prefix + '/' + rel + '/cpu.idle' for prefix in ('', '/cpu')
                   for driver in ('systemd', 'cgroupfs') for rel in QOS_DIRS[driver]],
        'memory_qos': [path + '/memory.min' for path in kubepods],
        'cpu_idle': [path + '/cpu.idle' for path in kubepods],
        'psi': [path + '/cpu.pressure' for path in kubepods],
        'bvt': [path + '/cpu.bvt_warp_ns' for path in kubepods],
        'bvt_root': cg + '/cpu.bvt_warp_ns',
        'wmark_ratio': cg + '/*/memory.wmark_ratio',
        'gi_sysctl': proc + '/sys/kernel/sched_group_identity_enabled',
        'sched_core': proc + '/sys/kernel/sched_core',
        'sched_features': sys_root + '/kernel/debug/sched_features',
        'cpuinfo': proc + '/cpuinfo',
        'cmdline': proc + '/cmdline',
        'l3_cbm': sys_root + '/fs/resctrl/info/L3/cbm_mask',
        # the mount point the kernel makes when it has resctrl for this CPU, the directory a mount of it shows, and
        # the memory bandwidth resource there
        'resctrl_dir': sys_root + '/fs/resctrl',
        'resctrl_info': sys_root + '/fs/resctrl/info',
        'mb_info': sys_root + '/fs/resctrl/info/MB',
        'nri_socket': asked['nri_socket'],
    }


_NEEDS = {
    'memory_qos': ('memory_qos',),
    'cpu_idle': ('cpu_idle',),
    'psi': ('psi', 'cmdline'),
    'group_identity': ('bvt', 'gi_sysctl', 'sched_core'),
    'core_sched': ('bvt_root', 'wmark_ratio', 'sched_core', 'sched_features'),
    'resctrl': ('cpuinfo', 'cmdline', 'l3_cbm', 'resctrl_dir', 'resctrl_info', 'mb_info'),
    'nri': ('nri_socket',),
}


def unknown_features(features):
    """The names of ``features`` that are not FEATURES (sorted), [] when all are known."""
    return sorted(set(str(item) for item in (features or [])) - set(FEATURES))


def probe_paths(asked):
    """The paths node_preflight probes (``probe_files``) for ``asked`` ({features, cgroup_root, proc_root, sys_root,
    nri_socket, kubelet_enabled}), each once, sorted: the hazard's cpu.idle files whenever the kubelet concern is
    on, and the files of each feature asked. A path may hold ``*`` (a glob: whether anything matches)."""
    asked = _asked(asked)
    paths = _paths(asked)
    names = ['hazard'] if asked['kubelet_enabled'] else []
    for feature in asked['features'] or []:
        names.extend(_NEEDS.get(feature, ()))
    found = set()
    for name in names:
        value = paths[name]
        found.update(value if isinstance(value, list) else [value])
    return sorted(found)


def _probe(probes, path):
    return (probes or {}).get(path) or {'exists': False, 'text': None}


def _exists(probes, path):
    return bool(_probe(probes, path).get('exists'))


def _text(probes, path):
    return _probe(probes, path).get('text')


def _first(probes, paths):
    """The first of ``paths`` that exists, or None."""
    for path in paths:
        if _exists(probes, path):
            return path
    return None


def _cpu_flags(text):
    flags = set()
    for line in (text or '').splitlines():
        key, sep, value = line.partition(':')
        if sep and key.strip() == 'flags':
            flags.update(value.split())
    return flags


def _vendor(text):
    for line in (text or '').splitlines():
        key, sep, value = line.partition(':')
        if sep and key.strip() == 'vendor_id':
            return value.strip()
    return ''


def is_anolis(probes, asked):
    """koordlet's test for an Anolis OS kernel: cpu.bvt_warp_ns in the root cgroup, or memory.wmark_ratio in a
    cgroup below it (pkg/koordlet/util/system/version.go, isAnolisOS / isSupportBvtOrWmarRatio)."""
    paths = _paths(_asked(asked))
    return _exists(probes, paths['bvt_root']) or _exists(probes, paths['wmark_ratio'])


def _kernel(kernel, feature):
    return ('this kernel is %s; upstream Linux has it since %s' % (kernel or 'unknown', KERNEL[feature])
            if feature in KERNEL else 'this kernel is %s' % (kernel or 'unknown'))


def _feature(name, ok, why, fix='', note=''):
    return {'feature': name, 'title': TITLES[name], 'ok': ok, 'why': why, 'fix': fix, 'note': note}


def _memory_qos(probes, paths, kernel):
    # pkg/koordlet/util/system/cgroup_resource.go: MemoryMinV2, MemoryLowV2, MemoryHighV2 carry no support check:
    # koordlet writes them on every cgroup v2 node, and a write fails where the file is missing
    found = _first(probes, paths['memory_qos'])
    if found:
        return _feature('memory_qos', True, '%s exists' % found)
    return _feature('memory_qos', False, 'no memory.min in the kubepods cgroup (%s)' % ' or '.join(paths['memory_qos']),
                    'boot with cgroup v2 and the memory controller (node_prep_memory_qos_enabled=true checks it), '
                    'or turn memoryQOS off in the NodeSLO; ' + _kernel(kernel, 'memory_qos'))


def _cpu_idle(probes, paths, kernel):
    # pkg/koordlet/util/system/cgroup_resource.go: CPUIdleV2 ... WithCheckSupported(SupportedIfFileExistsInKubepods)
    found = _first(probes, paths['cpu_idle'])
    if found:
        return _feature('cpu_idle', True, '%s exists' % found)
    return _feature('cpu_idle', False, 'no cpu.idle in the kubepods cgroup (%s)' % ' or '.join(paths['cpu_idle']),
                    'cpu.idle comes with the cpu controller of cgroup v2 (listed in the cgroup.subtree_control above '
                    'the kubepods cgroup) on a kernel that has it (%s); or set schedIdle to 0 in the NodeSLO'
                    % _kernel(kernel, 'cpu_idle'))


def _psi(probes, paths, kernel):
    # pkg/koordlet/util/system/cgroup_resource.go: CPUAcctCPUPressureV2 ... SupportedIfFileExistsInKubepods
    found = _first(probes, paths['psi'])
    if found:
        return _feature('psi', True, '%s exists' % found)
    cmdline = (_text(probes, paths['cmdline']) or '').split()
    fix = ('remove psi=0 from the kernel command line' if 'psi=0' in cmdline
           else 'add psi=1 to the kernel command line (node_prep_kernel_args) or move to a kernel built with PSI')
    return _feature('psi', False, 'no cpu.pressure in the kubepods cgroup (%s)' % ' or '.join(paths['psi']),
                    '%s; %s' % (fix, _kernel(kernel, 'psi')))


def _group_identity(probes, paths, kernel):
    # pkg/koordlet/runtimehooks/hooks/groupidentity/bvt.go, SystemSupported: cpu.bvt_warp_ns in the Guaranteed
    # (kubepods) cgroup, or the sysctl kernel.sched_group_identity_enabled (IsGroupIdentitySysctlSupported)
    bvt = _first(probes, paths['bvt'])
    sysctl = _exists(probes, paths['gi_sysctl'])
    if not bvt and not sysctl:
        return _feature('group_identity', False, 'neither cpu.bvt_warp_ns in the kubepods cgroup (%s) nor %s exists'
                        % (' or '.join(paths['bvt']), paths['gi_sysctl']),
                        'group identity is a feature of Anolis OS kernels: move to one, or use the coreSched CPU '
                        'policy; ' + _kernel(kernel, 'group_identity'))
    note = ''
    if sysctl and (_text(probes, paths['gi_sysctl']) or '').strip() == '0':
        # bvt.go, initSysctl: koordlet writes 1 to the sysctl itself, after switching core scheduling off
        note = ('%s is 0: koordlet sets it to 1 when a class enables group identity' % paths['gi_sysctl']
                + (', and sets %s to 0 first (core scheduling off)' % paths['sched_core']
                   if _exists(probes, paths['sched_core']) else ''))
    return _feature('group_identity', True, '%s exists' % (bvt or paths['gi_sysctl']), note=note)


def _core_sched(probes, paths, kernel, asked, core_probe):
    # pkg/koordlet/util/system/core_sched.go, IsCoreSchedSupported: on Anolis OS the sysctl kernel.sched_core, else
    # CORE_SCHED / NO_CORE_SCHED in sched_features; on another kernel a prctl(PR_SCHED_CORE_GET) that answers 0
    # (core_sched_linux.go, ProbeCoreSchedIfEnabled)
    if is_anolis(probes, asked):
        if _exists(probes, paths['sched_core']):
            return _feature('core_sched', True, '%s exists (Anolis OS kernel)' % paths['sched_core'])
        features = (_text(probes, paths['sched_features']) or '').split()
        if 'CORE_SCHED' in features or 'NO_CORE_SCHED' in features:
            return _feature('core_sched', True, '%s lists %s (Anolis OS kernel)' % (
                paths['sched_features'], 'CORE_SCHED' if 'CORE_SCHED' in features else 'NO_CORE_SCHED'))
        return _feature('core_sched', False, 'Anolis OS kernel without %s and without CORE_SCHED in %s'
                        % (paths['sched_core'], paths['sched_features']),
                        'move to an Anolis OS kernel with core scheduling, or use the groupIdentity CPU policy')
    answer = core_probe or {}
    if answer.get('supported'):
        return _feature('core_sched', True, 'prctl(PR_SCHED_CORE_GET) answers')
    return _feature('core_sched', False, 'prctl(PR_SCHED_CORE_GET) fails (%s)' % (answer.get('error') or 'not probed'),
                    'move to a kernel built with core scheduling (%s); with SMT off the kernel refuses it too'
                    % _kernel(kernel, 'core_sched'))


def rdt_options(cmdline):
    """What the kernel command line's ``rdt=`` asks of the resctrl features: {name: True (forced on) or False (forced
    off, ``!name``)}, names not given left out. A name both forced on and off is on (the kernel's
    arch/x86/kernel/cpu/resctrl/core.c, rdt_cpu_has: force_on is read last)."""
    options = {}
    for match in _RDT.finditer(cmdline or ''):
        for item in match.group(1).split(','):
            name = item.lstrip('!')
            if name:
                options[name] = options.get(name) is True or not item.startswith('!')
    return options


def _resctrl(probes, paths, kernel):
    # pkg/koordlet/util/system/resctrl.go, IsSupportResctrl / isCPUSupportResctrl: the CPU flags cat_l3 and mba in
    # /proc/cpuinfo, both; the kernel command line's rdt= is only logged (isKernelSupportResctrl, not needed on AMD);
    # CheckAndTryEnableResctrlCat mounts resctrl itself when info/L3/cbm_mask is missing, and fails when the mount
    # does not show it. What the kernel enables decides whether that mount can work: the mount point exists only
    # when the kernel has resctrl for this CPU, and rdt=!l3cat / rdt=!mba turn a resource off.
    cpuinfo = _text(probes, paths['cpuinfo'])
    if cpuinfo is None:
        return _feature('resctrl', False, '%s cannot be read' % paths['cpuinfo'], 'check that %s is procfs'
                        % paths['cpuinfo'])
    flags = _cpu_flags(cpuinfo)
    missing = [flag for flag in ('cat_l3', 'mba') if flag not in flags]
    if missing:
        return _feature('resctrl', False, 'the CPU flags in %s lack %s' % (paths['cpuinfo'], ' and '.join(missing)),
                        'resctrl QoS needs a CPU with L3 cache allocation and memory bandwidth allocation (Intel RDT '
                        'or AMD PQoS), on bare metal or passed through by the hypervisor; turn resctrlQOS off in the '
                        'NodeSLO for this node; ' + _kernel(kernel, 'resctrl'))
    cmdline = _text(probes, paths['cmdline']) or ''
    rdt = rdt_options(cmdline)
    off = [name for name in ('l3cat', 'mba') if rdt.get(name) is False]
    if off:
        return _feature('resctrl', False, 'the kernel command line turns %s off (%s)' % (
            ' and '.join(off), ' '.join(arg for arg in cmdline.split() if arg.startswith('rdt='))),
            'take %s out of rdt= in the boot loader\'s kernel command line and reboot (node_prep_kernel_args adds '
            'arguments, it does not take them out)' % ' and '.join('!' + name for name in off))
    if not _exists(probes, paths['resctrl_dir']):
        return _feature('resctrl', False, '%s does not exist: the running kernel has no resctrl for this CPU, so '
                        'koordlet cannot mount it' % paths['resctrl_dir'],
                        'boot a kernel built with CONFIG_X86_CPU_RESCTRL (%s), or turn resctrlQOS off in the NodeSLO '
                        'for this node' % _kernel(kernel, 'resctrl'))
    if _exists(probes, paths['resctrl_info']):
        # mounted: what the mount shows is what the kernel enabled
        lacking = [(what, path, name) for what, path, name in (
            ('L3 cache allocation', paths['l3_cbm'], 'l3cat'), ('memory bandwidth allocation', paths['mb_info'], 'mba'))
            if not _exists(probes, path)]
        if lacking:
            return _feature('resctrl', False, 'resctrl is mounted without %s (%s missing): the kernel did not enable '
                            'it' % (' and '.join(item[0] for item in lacking), ', '.join(item[1] for item in lacking)),
                            'add rdt=%s to the kernel command line (node_prep_kernel_args) and reboot'
                            % ','.join(item[2] for item in lacking))
    notes = []
    if not _exists(probes, paths['l3_cbm']):
        notes.append('%s is missing: resctrl is not mounted; koordlet mounts it itself at %s'
                     % (paths['l3_cbm'], paths['resctrl_dir']))
    if _vendor(cpuinfo) != 'AuthenticAMD' and not (rdt.get('l3cat') and rdt.get('mba')):
        notes.append('the kernel command line has no rdt=l3cat,mba (koordlet only logs it; add it with '
                     'node_prep_kernel_args if the mount lacks info/L3 or info/MB)')
    return _feature('resctrl', True, 'the CPU flags cat_l3 and mba are there and %s exists' % paths['resctrl_dir'],
                    note='; '.join(notes))


def _nri(probes, paths, asked):
    # pkg/koordlet/runtimehooks/nri/option.go, Validate: the socket /var/run/ + nri/nri.sock must exist
    # (runtimehooks/config.go: RuntimeHooksNRISocketPath; util/system/config.go: VarRunRootDir)
    socket = paths['nri_socket']
    if _exists(probes, socket):
        return _feature('nri', True, '%s exists' % socket)
    if asked['nri_enabled'] is True:
        return _feature('nri', True, '%s is missing now; this run enables NRI in containerd '
                        '(node_prep_nri_enabled=true) and checks the socket after the restart' % socket)
    return _feature('nri', False, '%s does not exist' % socket,
                    'enable NRI in containerd (node_prep_nri_enabled=true, containerd 1.7 or later), or run koordlet '
                    'with --runtime-hooks-nri=false')


def hazard(probes, asked):
    """The QoS-class cgroups whose cpu.idle is 1: [path], in the kubelet's order (kubepods, Burstable, BestEffort;
    systemd driver first; cgroup v2, then v1's cpu hierarchy, where the kubelet writes cpu.shares instead of
    cpu.weight and the kernel refuses it the same way)."""
    asked = _asked(asked)
    if not asked['kubelet_enabled']:
        return []
    return [path for path in _paths(asked)['hazard'] if (_text(probes, path) or '').strip() == '1']


def _classes_of(path):
    """The NodeSLO classes whose schedIdle sets cpu.idle on the cgroup of ``path`` (pkg/koordlet/runtimehooks/
    hooks/coresched/rule.go, parseRuleForNodeSLO: BestEffort beClass, Burstable lsClass, Guaranteed lsrClass when
    it enables core scheduling, else lsClass)."""
    parent = path.rsplit('/', 2)[-2]
    if parent in ('kubepods-besteffort.slice', 'besteffort'):
        return ['beClass']
    if parent in ('kubepods-burstable.slice', 'burstable'):
        return ['lsClass']
    return ['lsrClass', 'lsClass']


def hazard_message(host, paths, restarting, checking=False):
    """The message for ``paths`` (cpu.idle files at 1): an error when this run restarts the kubelet
    (``restarting``; ``checking``: a check-mode run, whose real run would), else a warning for the next restart."""
    files = ', '.join(paths)
    what = ('%s has cpu.idle set to 1 (koordlet sets it on the QoS-class cgroups when the NodeSLO gives a class '
            'schedIdle: 1 under the coreSched CPU policy). The kubelet writes the CPU weight of these cgroups when it '
            'starts, the kernel refuses a weight on an idle cgroup, and the kubelet fails to start ("failed to '
            'initialize top level QOS containers")' % files)
    fields = ', '.join(_unique(['resourceQOSStrategy.%s.cpuQOS.schedIdle' % klass
                                for path in paths for klass in _classes_of(path)]))
    fix = ('Set schedIdle to 0 for the class in the NodeSLO (%s, through koord-manager\'s slo-controller-config), '
           'wait for koordlet to write 0, or write 0 to the file yourself once koordlet no longer sets it' % fields)
    if restarting:
        return ('node_prep: %s: %s, and %s restarts the kubelet. %s, then run again; or leave the kubelet alone '
                'with node_prep_kubelet_enabled=false. Nothing was changed.'
                % (host, what, 'a real run of this play' if checking else 'this run', fix))
    return ('%s: %s: the next kubelet restart will fail. %s.' % (host, what, fix))


def verdict(probes, asked, host, kernel='', core_probe=None):
    """Per feature asked, whether koordlet can do it on this node; and the hazard.

    ``probes``: {path: {exists, text}} as node_preflight returns them (``probe_paths(asked)``); ``asked``:
    ASKED_DEFAULTS' keys; ``kernel``: the running kernel's release; ``core_probe``: node_preflight's
    prctl(PR_SCHED_CORE_GET) answer ({supported, error}) or None.

    Returns {features: [{feature, title, ok, why, fix, note}], hazard: [paths], warnings: [one line per feature
    that cannot work, naming host, feature, why and what to change; one per conflict], notes, pending: [the features
    asked that settle() judges after the plan]}."""
    asked = _asked(asked)
    paths = _paths(asked)
    features = []
    for name in FEATURES:
        if name not in (asked['features'] or []) or name in SETTLED_AFTER_PLAN:
            continue
        if name == 'memory_qos':
            features.append(_memory_qos(probes, paths, kernel))
        elif name == 'cpu_idle':
            features.append(_cpu_idle(probes, paths, kernel))
        elif name == 'psi':
            features.append(_psi(probes, paths, kernel))
        elif name == 'group_identity':
            features.append(_group_identity(probes, paths, kernel))
        elif name == 'core_sched':
            features.append(_core_sched(probes, paths, kernel, asked, core_probe))
        elif name == 'resctrl':
            features.append(_resctrl(probes, paths, kernel))
        else:
            features.append(_nri(probes, paths, asked))
    warnings = [_warning(host, item) for item in features if not item['ok']]
    if 'group_identity' in (asked['features'] or []) and 'core_sched' in (asked['features'] or []):
        # bvt.go, initSysctl: group identity switches core scheduling off (sched_core=0) before it starts
        warnings.append('%s: group identity and core scheduling exclude each other: koordlet switches core '
                        'scheduling off to enable group identity. Choose one CPU policy in the NodeSLO.' % host)
    notes = ['%s: %s: %s.' % (host, item['title'], item['note']) for item in features if item['ok'] and item['note']]
    return {'features': features, 'hazard': hazard(probes, asked), 'warnings': warnings, 'notes': notes,
            'pending': [name for name in SETTLED_AFTER_PLAN if name in (asked['features'] or [])]}


def _cpuset(kubelet):
    # pkg/koordlet/statesinformer/impl/states_noderesourcetopology.go, calcNodeTopo: koordlet takes over the cpusets
    # of new pods and advises cpuManagerPolicy none (static only until the pods the kubelet pinned are gone);
    # calGuaranteedCpu: it reports the kubelet's pinned CPUs except for pods koord-scheduler gave CPUs, which the
    # kubelet's static policy pins all the same; pkg/koordlet/runtimehooks/hooks/cpuset/rule.go, getContainerCPUSet
    kubelet = kubelet if isinstance(kubelet, dict) else {}
    config = kubelet.get('effective_config')
    if not isinstance(config, dict):
        config = kubelet.get('config')
    if kubelet.get('skipped') or not isinstance(config, dict):
        return _feature('cpuset', False, 'this run does not read the kubelet configuration (node_prep_kubelet_enabled '
                        'is false), so its cpuManagerPolicy is not known',
                        'make sure the kubelet runs with cpuManagerPolicy none, or run node_prep with the kubelet '
                        'concern on (check mode is enough) to have it checked')
    policy = str(config.get('cpuManagerPolicy') or 'none')
    when = 'after this run' if kubelet.get('changed') else 'now'
    if policy == 'none':
        return _feature('cpuset', True, 'the kubelet runs with cpuManagerPolicy none %s: the CPUs of LSR and LSE '
                        'pods are koord-scheduler\'s alone' % when)
    if policy == 'static':
        return _feature('cpuset', False, 'the kubelet runs with cpuManagerPolicy static %s: its CPU manager also pins '
                        'every Guaranteed container with whole CPUs (each LSR and LSE pod is one) to CPUs of its own '
                        'choosing, beside the CPUs koord-scheduler gives the pod and koordlet applies' % when,
                        'Koordinator advises cpuManagerPolicy none where koord-scheduler places LSR/LSE pods: set '
                        'node_prep_cpu_manager_policy to none; or leave cpuset out of node_prep_koordlet_features '
                        'while the kubelet is to keep pinning Guaranteed pods')
    return _feature('cpuset', False, 'the kubelet runs with cpuManagerPolicy %s %s, which koordlet does not know'
                    % (policy, when), 'set node_prep_cpu_manager_policy to none')


def settle(result, kubelet, host):
    """``result`` (a verdict) with the features judged on the kubelet configuration node_prep's plan leaves added
    (SETTLED_AFTER_PLAN: cpuset), from ``kubelet``: node_config's kubelet result of the plan (its ``config`` or
    ``effective_config``; None or skipped: the kubelet concern is off). Their warnings are in ``warnings`` and, alone,
    in ``settled_warnings``; ``pending`` is then empty. A new dict; ``result`` is left as it is."""
    result = dict(result or {})
    pending = list(result.get('pending') or [])
    if not pending:
        return result
    added = [_cpuset(kubelet)] if 'cpuset' in pending else []
    order = dict((name, index) for index, name in enumerate(FEATURES))
    result['features'] = sorted(list(result.get('features') or []) + added, key=lambda item: order[item['feature']])
    settled = [_warning(host, item) for item in added if not item['ok']]
    result['warnings'] = list(result.get('warnings') or []) + settled
    result['notes'] = list(result.get('notes') or []) + ['%s: %s: %s.' % (host, item['title'], item['note'])
                                                         for item in added if item['ok'] and item['note']]
    result['settled_warnings'] = settled
    result['pending'] = []
    return result


def _warning(host, item):
    return '%s: koordlet cannot do %s: %s. %s.' % (host, item['title'], item['why'], _capital(item['fix']))


def _capital(text):
    return text[:1].upper() + text[1:]


def summary(result):
    """One line: 'cpu.idle ok, core scheduling NO, ...' of a verdict's features ('' with none asked)."""
    return ', '.join('%s %s' % (item['feature'], 'ok' if item['ok'] else 'NO')
                     for item in (result or {}).get('features') or [])
