# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""playbooks/node_prep.yml against the playbook a user would write instead (bench/builtin_node_prep.yml) on a fleet
of sandbox nodes: wall time, tasks and changes per host, and the ratios against their targets.

Each host is a fresh copy of examples/sandbox/tree in a temporary directory, reached with the local connection
(the inventory is examples/sandbox/inventory.yml with one host per tree, as tests/system/test_node_prep_fleet.py
builds it). Every repeat runs, in this order (A B A B ... across repeats): ours first run on fresh trees, ours
rerun on the same trees, builtin first run on fresh trees, builtin rerun [, the --baseline collection's first run
and rerun]. After the first runs the trees of ours (and of the baseline) are compared with builtin's, file by
file; a difference is printed and makes the exit status 1, as does a failed run or a rerun that changed a tree.

    python bench/fleet.py [--hosts 10] [--repeat 3] [--forks 10] [--baseline REF] [--profile] [--by-process]
                          [--json FILE]
    python bench/fleet.py --scale 50,100,200,500 [--forks 50] [--json FILE]

--baseline REF also runs the collection as it is at git ref REF (git archive), so before and after are measured
side by side. --profile adds, after the timed runs, one untimed first run of ours (and of the baseline) with the
ansible.posix.profile_tasks callback and prints the ten most expensive tasks. --scale runs only our first run at
each fleet size and prints the seconds per host. --by-process (root, Debian's acct) splits every run's CPU seconds
into the controller's main process, its workers, the modules and the other commands, per host. Nothing is left
behind unless --keep is given.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SANDBOX_TREE = os.path.join(ROOT, 'examples', 'sandbox', 'tree')
SANDBOX_INVENTORY = os.path.join(ROOT, 'examples', 'sandbox', 'inventory.yml')
BUILTIN_PLAYBOOK = os.path.join(ROOT, 'bench', 'builtin_node_prep.yml')
# the floor of a rerun: one ansible.builtin.ping per host, nothing else
PING_PLAYBOOK = os.path.join(ROOT, 'bench', 'ping.yml')
NODE_PREP = os.path.join('playbooks', 'node_prep.yml')

# Left out of the tree comparison: bookkeeping of node_prep, not node state.
IGNORED = (
    ('var/backups/numaops-colocation/', "node_prep's backup of every file it changes (one directory per run)"),
    ('var/lib/numaops-colocation/', "node_prep's node lock (removed at the end of the run; its directory stays)"),
)
NOT_COMPARED = 'directories as such (an empty one is bookkeeping), owners and time stamps'
# Compared parsed (semantic equality); every other file byte for byte, with its permission bits.
PARSED = ((re.compile(r'^(var/lib/kubelet|etc/kubernetes)/.*\.ya?ml$'), 'YAML'),
          (re.compile(r'^etc/containerd/.*\.toml$'), 'TOML'))

# --by-process: BSD process accounting (accton, dump-acct from Debian's acct) records the CPU time of every
# process that ends, in ticks of AHZ (100 per second on Linux)
ACCT_HZ = 100.0
PROCESS_KINDS = ('controller main', 'controller workers', 'modules', 'other commands')

TARGET_FIRST = 0.8    # node_prep first run <= 0.8 x the builtin playbook's
TARGET_RERUN = 0.5    # node_prep rerun <= 0.5 x its own first run
TARGET_PING = 2.0     # node_prep rerun <= 2.0 x a playbook of one ansible.builtin.ping per host
TARGET_SPREAD = 20.0  # seconds per host within +-20 % from the smallest fleet to the largest

RECAP_RE = re.compile(r'^(?P<host>\S+)\s+:\s+(?P<counts>(?:[a-z]+=\d+\s*)+)$')
RESULT_RE = re.compile(r'^(?P<status>ok|changed|skipping|failed|fatal): \[(?P<host>[^\]\s]+)(?: -> [^\]]+)?\]')
TASK_RE = re.compile(r'^(?:TASK|RUNNING HANDLER) \[(?P<name>.*)\] \**$')
PROFILE_RE = re.compile(r'^(?P<name>.+?) -* ?(?P<seconds>\d+\.\d\d)s$')
# Tasks that stop, start or restart a service: node_prep's service.yml and containerd restart, the builtin
# playbook's handlers.
SERVICE_TASK_RE = re.compile(r'Service \| (?:Systemd|Commands)$|Restart and verify|Restart (?:the kubelet|containerd)$')

TASKS_DEFINITION = ('tasks/host = ok + skipped + failed + unreachable of the PLAY RECAP (ok already counts the '
                    'changed ones; an included file, a loop and a handler count once each); results/host = result '
                    'lines in the output, each loop item counted (closer to the module round trips, though '
                    'set_fact/debug/assert are results without one)')


class Variant:
    """One playbook to measure: its name, the playbook file, the collections path it runs with."""

    def __init__(self, name, playbook, collections, extra=()):
        self.name = name
        self.playbook = playbook
        self.collections = collections
        self.extra = list(extra)


def ansible_playbook():
    found = shutil.which('ansible-playbook', path=os.path.dirname(sys.executable)) or shutil.which('ansible-playbook')
    if not found:
        raise SystemExit('ansible-playbook not found: activate the virtual environment with ansible-core')
    return found


def git(*args):
    return subprocess.run(['git', '--no-optional-locks', '-C', ROOT] + list(args), capture_output=True, text=True,
                          check=True).stdout.strip()


def collection_link(top, source):
    """top/ansible_collections/numaops/colocation -> source; returns top (for ANSIBLE_COLLECTIONS_PATH)."""
    os.makedirs(os.path.join(top, 'ansible_collections', 'numaops'))
    os.symlink(source, os.path.join(top, 'ansible_collections', 'numaops', 'colocation'))
    return top


def extract_ref(top, ref):
    """The collection as it is at git ref ``ref``, in top/ansible_collections/numaops/colocation."""
    dest = os.path.join(top, 'ansible_collections', 'numaops', 'colocation')
    os.makedirs(dest)
    with subprocess.Popen(['git', '-C', ROOT, 'archive', ref], stdout=subprocess.PIPE) as archive:
        subprocess.run(['tar', '-x', '-C', dest], stdin=archive.stdout, check=True)
        archive.stdout.close()
        if archive.wait() != 0:
            raise SystemExit('git archive %s failed' % ref)
    return dest


def make_fleet(top, hosts):
    """``hosts`` fresh copies of the sandbox tree below ``top`` and their inventory; returns (inventory, trees)."""
    os.makedirs(top)
    trees = []
    for index in range(1, hosts + 1):
        tree = os.path.join(top, 'node-%d' % index, 'tree')
        shutil.copytree(SANDBOX_TREE, tree, symlinks=True)
        trees.append(tree)
    with open(SANDBOX_INVENTORY, encoding='utf-8') as handle:
        inventory = yaml.safe_load(handle)
    group = inventory['all']['children']['colocation_nodes']
    template = group['hosts']['sandbox-node-1']
    group['hosts'] = {}
    for index, tree in enumerate(trees, 1):
        name = 'sandbox-node-%d' % index
        group['hosts'][name] = dict(template, node_prep_root=tree, node_prep_node_name=name)
    group['vars'].pop('node_prep_root')
    group['vars'].pop('node_prep_node_name')
    path = os.path.join(top, 'inventory.yml')
    with open(path, 'w', encoding='utf-8') as handle:
        yaml.safe_dump(inventory, handle)
    return path, trees


def read_accounting(path, root):
    """CPU seconds of the process tree under pid ``root`` from a BSD process accounting file (dump-acct), split
    into the controller's main process, its forked workers, the modules (Python interpreters started below a
    worker: on the local connection, the node's side) and every other command (the shell around each module
    call). Returns {kind: [seconds, processes]}."""
    out = subprocess.run(['dump-acct', path], capture_output=True, text=True, check=True).stdout
    procs = {}
    for line in out.splitlines():
        fields = [f.strip() for f in line.split('|')]
        if len(fields) < 11:
            continue
        # comm | version | user time | system time | elapsed | uid | gid | memory | io | pid | ppid | ...
        procs[int(fields[9])] = (fields[0], (float(fields[2]) + float(fields[3])) / ACCT_HZ, int(fields[10]))
    children = {}
    for pid, (_comm, _cpu, ppid) in procs.items():
        children.setdefault(ppid, []).append(pid)
    split = dict((kind, [0.0, 0]) for kind in PROCESS_KINDS)

    def walk(pid, parent_kind):
        comm, cpu, _ppid = procs[pid]
        if pid == root:
            kind = 'controller main'
        elif parent_kind == 'controller main' and comm == procs[root][0]:
            kind = 'controller workers'
        elif comm.startswith('python'):
            kind = 'modules'
        else:
            kind = 'other commands'
        split[kind][0] += cpu
        split[kind][1] += 1
        for child in children.get(pid, ()):
            walk(child, kind)

    if root in procs:
        walk(root, None)
    return split


def run_playbook(work, variant, inventory, forks, log, profile=False, by_process=False):
    """One ansible-playbook run; returns its record (wall seconds, exit status, recap, results per host)."""
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=variant.collections, ANSIBLE_NOCOLOR='1',
               ANSIBLE_FORCE_COLOR='0', ANSIBLE_STDOUT_CALLBACK='default',
               ANSIBLE_DISPLAY_OK_HOSTS='true', ANSIBLE_DISPLAY_SKIPPED_HOSTS='true',
               ANSIBLE_LOCALHOST_WARNING='false', ANSIBLE_RETRY_FILES_ENABLED='false',
               ANSIBLE_LOCAL_TEMP=os.path.join(work, 'tmp', 'local'),
               ANSIBLE_REMOTE_TEMP=os.path.join(work, 'tmp', 'remote'))
    env.pop('ANSIBLE_CALLBACKS_ENABLED', None)
    if profile:
        env.update(ANSIBLE_CALLBACKS_ENABLED='ansible.posix.profile_tasks', PROFILE_TASKS_TASK_OUTPUT_LIMIT='all',
                   PROFILE_TASKS_SORT_ORDER='descending')
    argv = [ansible_playbook(), '-i', inventory, '-f', str(forks), variant.playbook] + variant.extra
    accounting = log + '.acct' if by_process else None
    if accounting:
        open(accounting, 'w', encoding='utf-8').close()
        subprocess.run(['accton', accounting], check=True, capture_output=True)
    with open(log, 'w', encoding='utf-8') as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        with subprocess.Popen(argv, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT) as proc:
            proc.wait()
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if accounting:
        subprocess.run(['accton', 'off'], check=True, capture_output=True)
    # CPU seconds (user + system) of ansible-playbook and of every process it waited for (its workers, and the
    # modules they ran: on the local connection the nodes' side too): what the run cost, whatever else the
    # machine was doing at the time
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(log, encoding='utf-8', errors='replace') as handle:
        output = handle.read()
    record = {'variant': variant.name, 'wall': wall, 'cpu': cpu, 'rc': proc.returncode, 'log': log}
    record.update(parse_output(output))
    if accounting:
        record['by_process'] = read_accounting(accounting, proc.pid)
        os.unlink(accounting)
    if profile:
        record['profile'] = parse_profile(output)
    return record


def after_last(lines, header):
    """The lines after the last line that starts with ``header`` (none when there is no such line)."""
    starts = [n for n, line in enumerate(lines) if line.startswith(header)]
    return lines[starts[-1] + 1:] if starts else []


def parse_output(output):
    """PLAY RECAP counts per host, result lines per host, and service actions per host."""
    lines = output.splitlines()
    recap = {}
    for line in after_last(lines, 'PLAY RECAP'):
        match = RECAP_RE.match(line.strip())
        if match:
            recap[match.group('host')] = dict((key, int(value)) for key, value in
                                              (item.split('=') for item in match.group('counts').split()))
    results = {}
    services = {}
    task = ''
    for line in lines:
        match = TASK_RE.match(line)
        if match:
            task = match.group('name')
            continue
        match = RESULT_RE.match(line)
        if match:
            host = match.group('host')
            results[host] = results.get(host, 0) + 1
            if match.group('status') in ('ok', 'changed') and SERVICE_TASK_RE.search(task):
                services[host] = services.get(host, 0) + 1
    return {'recap': recap, 'results': results, 'service_actions': services}


def parse_profile(output):
    """profile_tasks' TASKS RECAP: seconds per task name (tasks of the same name summed) and how many there were."""
    tasks = {}
    for line in after_last(output.splitlines(), 'TASKS RECAP'):
        match = PROFILE_RE.match(line.rstrip())
        if match and not line.startswith('='):
            entry = tasks.setdefault(match.group('name'), {'seconds': 0.0, 'count': 0})
            entry['seconds'] += float(match.group('seconds'))
            entry['count'] += 1
    return sorted(({'task': name, 'seconds': round(v['seconds'], 2), 'count': v['count']}
                   for name, v in tasks.items()), key=lambda t: -t['seconds'])


def tasks_per_host(counts):
    return counts.get('ok', 0) + counts.get('skipped', 0) + counts.get('failed', 0) \
        + counts.get('unreachable', 0)


def ignored(rel):
    return any((rel + '/').startswith(prefix) for prefix, _why in IGNORED)


def snapshot(tree):
    """{relative path: ('link', target) | ('file', mode, bytes)} of a tree, bookkeeping left out."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(tree):
        rel_dir = os.path.relpath(dirpath, tree)
        dirnames[:] = [d for d in dirnames if not ignored(os.path.normpath(os.path.join(rel_dir, d)))]
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, name)
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if os.path.islink(path):
                state[rel] = ('link', os.readlink(path))
            else:
                with open(path, 'rb') as handle:
                    state[rel] = ('file', oct(os.stat(path).st_mode & 0o7777), handle.read())
    return state


def parse_file(rel, data):
    """(kind, parsed document) for the files compared semantically, (None, None) for the rest."""
    for pattern, kind in PARSED:
        if pattern.match(rel):
            try:
                text = data.decode('utf-8')
                return kind, (yaml.safe_load(text) if kind == 'YAML' else tomllib.loads(text))
            except (ValueError, yaml.YAMLError, tomllib.TOMLDecodeError):
                return None, None
    return None, None


def flat(value, prefix=''):
    if isinstance(value, dict) and value:
        items = {}
        for key, item in value.items():
            items.update(flat(item, '%s%s.' % (prefix, key)))
        return items
    return {prefix.rstrip('.'): value}


def compare_states(left, right, names):
    """Differences between two snapshots (a list of sentences; empty when they hold the same node state)."""
    problems = []
    for rel in sorted(set(left) | set(right)):
        if rel not in left or rel not in right:
            problems.append('%s: only after %s' % (rel, names[0] if rel in left else names[1]))
            continue
        one, two = left[rel], right[rel]
        if one[0] != two[0] or one[0] == 'link':
            if one != two:
                problems.append('%s: %s vs %s' % (rel, one[:2], two[:2]))
            continue
        if one[1] != two[1]:
            problems.append('%s: mode %s after %s, %s after %s' % (rel, one[1], names[0], two[1], names[1]))
        kind, doc_one = parse_file(rel, one[2])
        if kind:
            doc_two = parse_file(rel, two[2])[1]
            if doc_one != doc_two:
                keys_one, keys_two = flat(doc_one), flat(doc_two)
                keys = sorted(k for k in set(keys_one) | set(keys_two) if keys_one.get(k) != keys_two.get(k))
                problems.append('%s (%s): differs at %s' % (rel, kind, ', '.join(
                    '%s=%r vs %r' % (k, keys_one.get(k), keys_two.get(k)) for k in keys[:6])))
        elif one[2] != two[2]:
            problems.append('%s: the bytes differ' % rel)
    return problems


def show_failure(record):
    with open(record['log'], encoding='utf-8', errors='replace') as handle:
        tail = handle.read().splitlines()[-40:]
    print('    FAILED (exit status %d), the end of its output:' % record['rc'])
    for line in tail:
        print('    | ' + line)


def check_run(record, hosts):
    """A sentence when the run failed or did not report every host, else None."""
    failed = sum(c.get('failed', 0) + c.get('unreachable', 0) for c in record['recap'].values())
    if record['rc'] != 0 or failed or len(record['recap']) != hosts:
        return '%s %s (repeat %s): exit status %d, %d of %d hosts in the recap, %d failed' % (
            record['variant'], record['run'], record.get('repeat', '-'), record['rc'], len(record['recap']), hosts,
            failed)
    return None


def describe(record):
    recap = record['recap'].values()
    per = (lambda key: statistics.mean(c.get(key, 0) for c in recap)) if recap else (lambda key: 0)
    tasks = statistics.mean(tasks_per_host(c) for c in recap) if recap else 0
    return '%7.1f s (cpu %6.1f s)  rc=%d  tasks/host %.1f  changed/host %.1f  skipped/host %.1f' % (
        record['wall'], record['cpu'], record['rc'], tasks, per('changed'), per('skipped'))


def measure_variant(work, variant, args, repeat, problems):
    """First run on fresh trees and rerun of one variant; returns (records, snapshots after the first run)."""
    top = os.path.join(work, 'r%d-%s' % (repeat, variant.name))
    inventory, trees = make_fleet(top, args.hosts)
    records = []
    first = []
    for run in ('first', 'rerun'):
        record = run_playbook(work, variant, inventory, args.forks, os.path.join(work, 'logs', '%d-%s-%s.log' % (
            repeat, variant.name, run)), by_process=args.by_process)
        record.update(run=run, repeat=repeat)
        records.append(record)
        print('  [%d/%d] %-8s %-5s %s' % (repeat + 1, args.repeat, variant.name, run, describe(record)), flush=True)
        trouble = check_run(record, args.hosts)
        if trouble:
            problems.append(trouble)
            show_failure(record)
        if run == 'first':
            first = [snapshot(tree) for tree in trees]
            continue
        for index, (tree, before) in enumerate(zip(trees, first), 1):
            changed = compare_states(before, snapshot(tree), ('the first run', 'the rerun'))
            if changed:
                problems.append('%s rerun changed sandbox-node-%d: %s' % (variant.name, index, '; '.join(changed)))
                print('    RERUN CHANGED sandbox-node-%d: %s' % (index, '; '.join(changed)))
    if not args.keep:
        shutil.rmtree(top)
    return records, first


def compare_fleets(name, states, reference, repeat, problems):
    agree = 0
    for index, (one, two) in enumerate(zip(states, reference), 1):
        diff = compare_states(one, two, (name, 'builtin'))
        if diff:
            problems.append('repeat %d, sandbox-node-%d: %s and builtin differ: %s'
                            % (repeat + 1, index, name, '; '.join(diff)))
            print('    MISMATCH sandbox-node-%d, %s vs builtin:' % (index, name))
            for line in diff:
                print('      ' + line)
        else:
            agree += 1
    files = len(reference[0]) if reference else 0
    print('    trees: %s = builtin on %d of %d hosts (%d files each)' % (name, agree, len(reference), files))


def summarize(records, variants):
    rows = []
    for variant in variants:
        for run in ('first', 'rerun'):
            mine = [r for r in records if r['variant'] == variant.name and r['run'] == run]
            if not mine:
                continue
            recaps = [c for r in mine for c in r['recap'].values()]
            results = [n for r in mine for n in r['results'].values()]
            walls = [r['wall'] for r in mine]
            cpus = [r['cpu'] for r in mine]
            rows.append({
                'variant': variant.name, 'run': run, 'repeats': len(mine),
                'wall_median': statistics.median(walls), 'wall_min': min(walls), 'walls': walls,
                'cpu_median': statistics.median(cpus), 'cpus': cpus,
                'tasks_per_host': statistics.mean(tasks_per_host(c) for c in recaps) if recaps else 0,
                'changed_per_host': statistics.mean(c.get('changed', 0) for c in recaps) if recaps else 0,
                'skipped_per_host': statistics.mean(c.get('skipped', 0) for c in recaps) if recaps else 0,
                'results_per_host': statistics.mean(results) if results else 0})
            if all('by_process' in r for r in mine):
                for key, column in (('cpu_per_host_by_process', 0), ('processes_per_host_by_process', 1)):
                    rows[-1][key] = dict(
                        (kind, statistics.median(r['by_process'][kind][column] / max(len(r['recap']), 1)
                                                 for r in mine))
                        for kind in PROCESS_KINDS)
    return rows


def print_by_process(rows):
    """--by-process: where the CPU seconds of each run went, per host (medians over the repeats)."""
    if not all('cpu_per_host_by_process' in row for row in rows):
        return
    print('\nCPU seconds per host by process (process accounting; median of the repeats; processes per host in '
          'brackets):')
    print('%-9s %-6s %s %10s' % ('variant', 'run', ' '.join('%22s' % kind for kind in PROCESS_KINDS), 'total'))
    for row in rows:
        cpu, count = row['cpu_per_host_by_process'], row['processes_per_host_by_process']
        print('%-9s %-6s %s %10.2f' % (row['variant'], row['run'], ' '.join(
            '%22s' % ('%.2f (%.1f)' % (cpu[kind], count[kind])) for kind in PROCESS_KINDS), sum(cpu.values())))
    print('(controller main: ansible-playbook itself, which also computes every task\'s variables; controller '
          'workers: its forks, one per task and host, which template the task and run the action plugin; '
          'modules: the Python interpreters below them, the node\'s side on the local connection; other commands: '
          'the shell commands around each module call. "controller main" is one process for the whole fleet, '
          'divided by the hosts)')


def print_table(rows):
    print('\n%-9s %-6s %8s %8s %10s %11s %13s %13s %13s' % (
        'variant', 'run', 'median s', 'min s', 'cpu s', 'tasks/host', 'changed/host', 'skipped/host', 'results/host'))
    for row in rows:
        print('%-9s %-6s %8.1f %8.1f %10.1f %11.1f %13.1f %13.1f %13.1f' % (
            row['variant'], row['run'], row['wall_median'], row['wall_min'], row['cpu_median'], row['tasks_per_host'],
            row['changed_per_host'], row['skipped_per_host'], row['results_per_host']))
    print('(%s; cpu s = median CPU seconds, user + system, of ansible-playbook and every process it waited for)'
          % TASKS_DEFINITION)


def ratio(rows, one, two, target=None):
    def find(key):
        return next((r for r in rows if (r['variant'], r['run']) == key), None)
    left, right = find(one), find(two)
    if not left or not right:
        return None
    pairs = [a / b for a, b in zip(left['walls'], right['walls']) if b]
    value = left['wall_median'] / right['wall_median'] if right['wall_median'] else float('inf')
    cpu = left['cpu_median'] / right['cpu_median'] if right['cpu_median'] else float('inf')
    return {'ratio': '%s %s / %s %s' % (one + two), 'value': value, 'per_repeat': pairs, 'target': target,
            'met': None if target is None else value <= target, 'cpu': cpu}


def print_ratios(rows, variants):
    names = [v.name for v in variants]
    wanted = [(('ours', 'first'), ('builtin', 'first'), TARGET_FIRST),
              (('ours', 'rerun'), ('ours', 'first'), TARGET_RERUN),
              (('ours', 'rerun'), ('builtin', 'rerun'), None),
              (('ours', 'rerun'), ('ping', 'rerun'), TARGET_PING)]
    if 'baseline' in names:
        wanted += [(('baseline', 'first'), ('builtin', 'first'), TARGET_FIRST),
                   (('baseline', 'rerun'), ('baseline', 'first'), TARGET_RERUN),
                   (('baseline', 'rerun'), ('builtin', 'rerun'), None),
                   (('baseline', 'rerun'), ('ping', 'rerun'), TARGET_PING),
                   (('ours', 'first'), ('baseline', 'first'), None),
                   (('ours', 'rerun'), ('baseline', 'rerun'), None)]
    ratios = [r for r in (ratio(rows, *w) for w in wanted) if r]
    print('\n%-34s %7s  %-8s %-4s %-7s %s' % ('ratio (of the medians)', 'value', 'target', 'met', 'of cpu',
                                              'per repeat'))
    for item in ratios:
        print('%-34s %6.2fx  %-8s %-4s %5.2fx  %s' % (
            item['ratio'], item['value'], '<= %.1fx' % item['target'] if item['target'] is not None else '-',
            {True: 'yes', False: 'NO', None: ''}[item['met']], item['cpu'],
            ' '.join('%.2f' % p for p in item['per_repeat'])))
    print('(value and met: wall seconds, as the targets are stated; of cpu: the same ratio of the CPU seconds)')
    for row in rows:
        if row['run'] == 'rerun':
            verdict = 'yes' if row['changed_per_host'] == 0 else 'NO (%.1f/host)' % row['changed_per_host']
            print('%s rerun changed=0 on every host: %s' % (row['variant'], verdict))
    return ratios


def print_profile(name, tasks):
    print('\nten most expensive tasks of %s first run (profile_tasks; seconds of wall time from the start of the '
          'task to the start of the next, all hosts together; tasks of the same name summed, x count):' % name)
    for task in tasks[:10]:
        times = '  (x%d)' % task['count'] if task['count'] > 1 else ''
        print('  %7.2f s  %s%s' % (task['seconds'], task['task'], times))


def print_ignored():
    print('left out of the tree comparison:')
    for prefix, why in IGNORED:
        print('  %s  %s' % (prefix, why))
    print('  not compared: %s' % NOT_COMPARED)
    print('  parsed and compared semantically: %s; every other file byte for byte with its mode'
          % ', '.join('%s (%s)' % (p.pattern, k) for p, k in PARSED))


def comparison(work, variants, args, report):
    """The timed, interleaved runs of every variant, the tree comparisons, the table, the ratios, the profile."""
    problems = []
    records = []
    print_ignored()
    for repeat in range(args.repeat):
        firsts = {}
        for variant in variants:
            mine, firsts[variant.name] = measure_variant(work, variant, args, repeat, problems)
            records.extend(mine)
        for name, states in firsts.items():
            if name not in ('builtin', 'ping'):
                compare_fleets(name, states, firsts['builtin'], repeat, problems)
    rows = summarize(records, variants)
    print_table(rows)
    print_by_process(rows)
    report.update(runs=[dict((k, v) for k, v in r.items() if k != 'log') for r in records], summary=rows,
                  ratios=print_ratios(rows, variants))
    if args.profile:
        report['profile'] = {}
        for variant in variants:
            if variant.name in ('builtin', 'ping'):
                continue
            inventory, _trees = make_fleet(os.path.join(work, 'profile-%s' % variant.name), args.hosts)
            record = run_playbook(work, variant, inventory, args.forks,
                                  os.path.join(work, 'logs', 'profile-%s.log' % variant.name), profile=True)
            record['run'] = 'first (profiled)'
            trouble = check_run(record, args.hosts)
            if trouble:
                problems.append(trouble)
                show_failure(record)
            print_profile(variant.name, record['profile'])
            report['profile'][variant.name] = record['profile']
    return problems


def scale(work, variant, args, report):
    """Our first run at each fleet size of --scale: seconds, seconds per host and their spread."""
    problems = []
    sizes = [int(s) for s in args.scale.split(',') if s.strip()]
    rows = []
    every = []
    for size in sizes:
        walls = []
        records = []
        for repeat in range(args.repeat):
            top = os.path.join(work, 'scale-%d-%d' % (size, repeat))
            inventory, _trees = make_fleet(top, size)
            record = run_playbook(work, variant, inventory, args.forks,
                                  os.path.join(work, 'logs', 'scale-%d-%d.log' % (size, repeat)))
            record.update(run='first', repeat=repeat, hosts=size)
            print('  %4d hosts [%d/%d] %s' % (size, repeat + 1, args.repeat, describe(record)), flush=True)
            trouble = check_run(record, size)
            if trouble:
                problems.append(trouble)
                show_failure(record)
            walls.append(record['wall'])
            records.append(record)
            every.append(record)
            if not args.keep:
                shutil.rmtree(top)
        unchanged = [h for r in records for h, c in r['recap'].items() if c.get('changed', 0) == 0]
        cpus = [r['cpu'] for r in records]
        rows.append({'hosts': size, 'forks': args.forks, 'walls': walls, 'seconds': statistics.median(walls),
                     'per_host': statistics.median(walls) / size,
                     'cpu_per_host': statistics.median(cpus) / size,
                     'service_actions': sum(sum(r['service_actions'].values()) for r in records),
                     'unchanged_hosts': len(unchanged),
                     'restarts_on_unchanged': sum(r['service_actions'].get(h, 0) for r in records for h in unchanged)})
    base = rows[0]['per_host'] if rows else 0
    cpu_base = rows[0]['cpu_per_host'] if rows else 0
    print('\n%6s %6s %9s %10s %22s %12s %13s %10s %15s' % (
        'hosts', 'forks', 'seconds', 's/host', 'spread vs %d hosts' % sizes[0], 'cpu s/host', 'cpu spread',
        'unchanged', 'restarts there'))
    for row in rows:
        row['spread_percent'] = (row['per_host'] / base - 1) * 100 if base else 0.0
        row['cpu_spread_percent'] = (row['cpu_per_host'] / cpu_base - 1) * 100 if cpu_base else 0.0
        print('%6d %6d %9.1f %10.3f %21.1f%% %12.3f %12.1f%% %10d %15d' % (
            row['hosts'], row['forks'], row['seconds'], row['per_host'], row['spread_percent'], row['cpu_per_host'],
            row['cpu_spread_percent'], row['unchanged_hosts'], row['restarts_on_unchanged']))
    worst = max((abs(r['spread_percent']) for r in rows), default=0.0)
    print('largest spread %.1f%% (target: within +-%.0f%%: %s)' % (worst, TARGET_SPREAD,
                                                                   'met' if worst <= TARGET_SPREAD else 'NOT met'))
    print('largest spread of the CPU seconds per host %.1f%% (what the run cost, whatever else the machine did)'
          % max((abs(r['cpu_spread_percent']) for r in rows), default=0.0))
    print('service restarts counted from the output (non-skipped service tasks): %d in all. The sandbox inventory '
          'sets node_prep_manage_services=false, so node_prep skips every restart: 0 by construction, and on a '
          'first run on fresh trees every host changes, so no host is unchanged.'
          % sum(r['service_actions'] for r in rows))
    report.update(scale=rows, scale_largest_spread_percent=worst,
                  runs=[dict((k, v) for k, v in r.items() if k != 'log') for r in every])
    return problems


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--hosts', type=int, default=10, help='sandbox hosts in the fleet (default 10)')
    parser.add_argument('--repeat', type=int, default=None, help='repeats (default 3; 1 with --scale)')
    parser.add_argument('--forks', type=int, default=None, help='ansible forks (default 10; 50 with --scale)')
    parser.add_argument('--baseline', metavar='REF', help='also run the collection as it is at this git ref')
    parser.add_argument('--profile', action='store_true', help='profile one extra first run (profile_tasks)')
    parser.add_argument('--scale', metavar='N,N,...', help='only our first run at each fleet size')
    parser.add_argument('--max-unavailable', metavar='N|N%',
                        help='node_prep_max_unavailable for ours and the baseline (default: the role default, 1: '
                             'the apply play changes one node at a time)')
    parser.add_argument('--by-process', action='store_true',
                        help='split the CPU seconds of every run by process (controller main process, its workers, '
                             'modules, other commands) with BSD process accounting: needs root and accton/dump-acct '
                             "(Debian's acct), and nothing else using process accounting meanwhile")
    parser.add_argument('--json', metavar='FILE', help='write every figure to FILE')
    parser.add_argument('--keep', action='store_true', help='keep the temporary directory (trees, logs)')
    args = parser.parse_args()
    if args.repeat is None:
        args.repeat = 1 if args.scale else 3
    if args.forks is None:
        args.forks = 50 if args.scale else 10
    if args.hosts < 1 or args.repeat < 1 or args.forks < 1:
        parser.error('--hosts, --repeat and --forks must be at least 1')
    if args.by_process:
        missing = [tool for tool in ('accton', 'dump-acct') if not shutil.which(tool)]
        if missing or os.geteuid() != 0:
            parser.error('--by-process needs root (process accounting) and %s (apt-get install acct)'
                         % ', '.join(missing or ['accton', 'dump-acct']))
        if args.scale:
            parser.error('--by-process goes with the comparison, not with --scale')
    return args


def main():
    args = parse_args()
    work = tempfile.mkdtemp(prefix='numaops-fleet-')
    os.makedirs(os.path.join(work, 'logs'))
    head = git('rev-parse', '--short', 'HEAD')
    dirty = len(git('status', '--porcelain', '--', 'plugins', 'roles', 'playbooks').splitlines())
    report = {'config': {'hosts': args.hosts, 'repeat': args.repeat, 'forks': args.forks, 'scale': args.scale,
                         'baseline': args.baseline, 'profile': args.profile, 'head': head,
                         'by_process': args.by_process,
                         'max_unavailable': args.max_unavailable or 1,
                         'uncommitted_files': dirty, 'cpus': os.cpu_count(), 'ignored': [p for p, _w in IGNORED],
                         'tasks_definition': TASKS_DEFINITION}}
    extra = ['-e', 'colocation_report_dir=%s' % os.path.join(work, 'reports')]
    if args.max_unavailable:
        extra += ['-e', 'node_prep_max_unavailable=%s' % args.max_unavailable]
    try:
        ours = Variant('ours', os.path.join(ROOT, NODE_PREP), collection_link(os.path.join(work, 'ours'), ROOT), extra)
        print('ours: the working tree %s (HEAD %s, %d uncommitted file(s) in plugins/ roles/ playbooks/)'
              % (ROOT, head, dirty))
        variants = [ours, Variant('builtin', BUILTIN_PLAYBOOK, ours.collections),
                    Variant('ping', PING_PLAYBOOK, ours.collections)]
        if args.baseline:
            commit = git('rev-parse', '--short', args.baseline + '^{commit}')
            source = extract_ref(os.path.join(work, 'baseline'), args.baseline)
            variants.append(Variant('baseline', os.path.join(source, NODE_PREP), os.path.join(work, 'baseline'), extra))
            report['config']['baseline_commit'] = commit
            print('baseline: %s (%s), extracted with git archive' % (args.baseline, commit))
        print('%s, %d CPU(s), forks %d, local connection, node_prep_max_unavailable %s' % (
            'scale %s' % args.scale if args.scale else '%d hosts x %d repeat(s)' % (args.hosts, args.repeat),
            os.cpu_count(), args.forks, args.max_unavailable or '1 (the role default: one node at a time)'),
            flush=True)
        if args.scale:
            problems = scale(work, ours, args, report)
        else:
            problems = comparison(work, variants, args, report)
        report['problems'] = problems
        if args.json:
            with open(args.json, 'w', encoding='utf-8') as handle:
                json.dump(report, handle, indent=2, sort_keys=True)
            print('figures written to %s' % args.json)
        if problems:
            print('\n%d PROBLEM(S):' % len(problems))
            for problem in problems:
                print('  ' + problem)
        return 1 if problems else 0
    finally:
        if args.keep:
            print('kept %s' % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
