# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The role and playbook variables of node_prep, parsed strictly against the role's argument specification
(roles/node_prep/meta/argument_specs.yml) before anything is locked or changed.

Stricter than Ansible's own validator, which converts rather than refuses: there ``maybe`` would fail a ``bool``
but pass the ``raw`` ``node_prep_nri_enabled`` (and be read as false later), and a bare string passes a ``list``
(``"nosmt"`` becomes ``["nosmt"]`` in the validator, while the tasks would still see the string and walk its
characters). Here:

- a boolean is a boolean: ``true``/``false`` (and the spellings Ansible itself reads as booleans, such as ``yes``,
  ``no``, ``"1"``, ``"0"``, in any case), nothing else: ``maybe``, ``ture`` are refused;
- a list is a list: a string is refused (say ``["nosmt"]``), and so is a dictionary;
- a number is a whole number (``"30"`` from ``-e`` is read as 30), within the range the option allows
  (``RANGES``); a string option takes a string or a whole number, never a float (``1.30`` would be ``1.3``), a
  boolean, a list or a dictionary; a dictionary is a dictionary (``"a=b"`` is refused);
- a value outside ``choices`` is refused naming every allowed value;
- a dictionary whose fields the specification declares (``options``, such as ``node_prep_perf_profile``) has
  each field parsed the same way, and a field it does not declare is refused naming the ones it does;
- V(null) leaves the option unset, as the role's documentation says.

Every message names where (``host node-1``), the variable, the value and what is allowed.

The playbook settings of playbooks/node_prep.yml and audit.yml (``fleet_settings``): the batch size
``node_prep_max_unavailable`` (a whole number from 1, or a percentage above 0 up to 100), the stop rule
``node_prep_max_fail_percentage`` (0 to 100) and their AWX survey questions (a blank answer is not an answer),
and the playbooks' booleans.

Controller side only; standard library only.
"""
from __future__ import annotations

import re

from ansible_collections.numaops.colocation.plugins.module_utils.values import FALSE_STRINGS as _FALSE, TRUE_STRINGS as _TRUE

# (minimum, maximum or None) of the whole-number options; the others of type int allow 0 and up
RANGES = {
    'node_prep_kubelet_health_timeout': (1, None),
    'node_prep_kubelet_health_settle': (0, None),
    'node_prep_containerd_health_timeout': (1, None),
    'node_prep_reboot_timeout': (1, None),
    'node_prep_lock_stale_after': (0, None),
    'node_prep_drain_timeout': (1, None),
    'node_prep_node_ready_timeout': (1, None),
    'node_prep_health_poll_interval': (1, None),
    'node_prep_reconnect_timeout': (0, None),
    'node_prep_reserved_cores': (0, None),
}

# options of type raw that are a boolean or null (a bool option cannot be null in an argument specification)
NULLABLE_BOOLEANS = ('node_prep_nri_enabled',)

# the booleans of the playbooks (not role options): name -> default
PLAYBOOK_BOOLEANS = {
    'node_prep_continue_healthy': False,
    'node_prep_become': True,
    'colocation_gather_facts': False,
    'colocation_allow_unknown_variables': False,
    'colocation_audit_fail_on_drift': True,
    'colocation_audit_fail_on_refusals': True,
}

_PERCENT = re.compile(r'^(\d+(?:\.\d+)?)%$')


class Invalid(ValueError):
    """A value that does not fit; the message says what is allowed."""


def _show(value):
    return repr(value) if isinstance(value, str) else str(value)


def _bool(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise Invalid('is not a boolean: give true or false')


def _int(value, bounds=(0, None)):
    if isinstance(value, bool) or isinstance(value, float):
        raise Invalid('is not a whole number')
    if isinstance(value, str):
        text = value.strip()
        if not re.match(r'^[+-]?\d+$', text):
            raise Invalid('is not a whole number')
        value = int(text)
    if not isinstance(value, int):
        raise Invalid('is not a whole number')
    low, high = bounds
    if value < low or (high is not None and value > high):
        allowed = 'from {0}'.format(low) if high is None else 'from {0} to {1}'.format(low, high)
        raise Invalid('is out of range: give a whole number %s' % allowed)
    return value


def _str(value):
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise Invalid('is not a string (a %s)' % _kind(value))


def _kind(value):
    if isinstance(value, bool):
        return 'boolean'
    if isinstance(value, dict):
        return 'dictionary'
    if isinstance(value, (list, tuple)):
        return 'list'
    if isinstance(value, float):
        return 'decimal number: quote it'
    if isinstance(value, str):
        return 'string'
    if isinstance(value, int):
        return 'whole number'
    return type(value).__name__


def parse_value(name, option, value):
    """The value of option ``name`` (its argument specification ``option``) as the role reads it; raises Invalid."""
    if value is None:
        return None
    kind = option.get('type', 'str')
    if name in NULLABLE_BOOLEANS:
        parsed = _bool(value)
    elif kind == 'bool':
        parsed = _bool(value)
    elif kind == 'int':
        parsed = _int(value, RANGES.get(name, (0, None)))
    elif kind in ('str', 'path'):
        parsed = _str(value)
    elif kind == 'list':
        if not isinstance(value, (list, tuple)):
            raise Invalid('is not a list (a %s): give a list, such as [%s]' % (
                _kind(value), _show(value) if isinstance(value, str) else '...'))
        elements = option.get('elements')
        parsed = []
        for index, item in enumerate(value):
            try:
                parsed.append(parse_value('', {'type': elements, 'options': option.get('options')}, item)
                              if elements else item)
            except Invalid as error:
                raise Invalid('has an element %d (%s) that %s' % (index, _show(item), error))
    elif kind == 'dict':
        if not isinstance(value, dict):
            raise Invalid('is not a dictionary (a %s)' % _kind(value))
        parsed = _fields(option['options'], value) if option.get('options') else dict(value)
    else:
        parsed = value
    choices = option.get('choices')
    if choices and kind == 'list':
        # a list's choices are those of its elements
        for index, item in enumerate(parsed):
            if item not in choices:
                raise Invalid('has an element %d (%s) that is not one of %s' % (
                    index, _show(item), ', '.join(str(c) for c in choices)))
    elif choices and parsed not in choices:
        raise Invalid('is not one of %s' % ', '.join(str(c) for c in choices))
    return parsed


def _fields(options, value):
    """A dictionary with declared fields (``options`` of the argument specification): each field parsed as an
    option, a field not declared or a required one missing refused naming it and what is allowed."""
    unknown = sorted(str(key) for key in value if key not in options)
    if unknown:
        raise Invalid('has the field %s, which is not one of %s' % (', '.join(unknown), ', '.join(sorted(options))))
    parsed = {}
    for key in sorted(options):
        if key not in value:
            if (options[key] or {}).get('required'):
                raise Invalid('lacks the field %s' % key)
            continue
        try:
            parsed[key] = parse_value(key, options[key] or {}, value[key])
        except Invalid as error:
            raise Invalid('has a field %s (%s) that %s' % (key, _show(value[key]), error))
    return parsed


def parse(options, given, where=''):
    """({name: typed value}, [errors]) of the options among ``given`` (role variables by name) that the argument
    specification ``options`` declares."""
    values = {}
    errors = []
    for name in sorted(options):
        if name not in given:
            continue
        try:
            values[name] = parse_value(name, options[name] or {}, given[name])
        except Invalid as error:
            errors.append('%s%s=%s %s.' % ('%s: ' % where if where else '', name, _show(given[name]), error))
    return values, errors


def _blank(value):
    return value is None or (isinstance(value, str) and value.strip() == '')


def batch_setting(value):
    """``node_prep_max_unavailable``: a whole number from 1, or a percentage above 0 and up to 100 (``"10%"``);
    returned as given (an int, or the percentage as a string); raises Invalid."""
    if isinstance(value, str) and _PERCENT.match(value.strip()):
        share = float(_PERCENT.match(value.strip()).group(1))
        if share <= 0 or share > 100:
            raise Invalid('is out of range: a percentage is above 0%% and at most 100%%')
        return value.strip()
    try:
        return _int(value, (1, None))
    except Invalid:
        raise Invalid('is not a batch size: give a whole number from 1 (nodes at a time) or a percentage of the '
                      'fleet such as "10%" (0 would put the whole fleet in one batch)')


def fleet_settings(variables):
    """{'max_unavailable', 'max_fail_percentage', 'continue_healthy', 'errors'} from the job's variables (the
    survey answers of the two first, when not blank, over the variables of the same name without ``survey_``).
    Read once for the run, before any lock."""
    errors = []
    settings = {}
    rules = (('max_unavailable', 1, batch_setting),
             ('max_fail_percentage', 0, lambda value: _int(value, (0, 100))))
    for key, default, parse_one in rules:
        name = 'node_prep_%s' % key
        survey = 'node_prep_survey_%s' % key
        if survey in variables and not _blank(variables[survey]):
            source, value = survey, variables[survey]
        elif name in variables and variables[name] is not None:
            source, value = name, variables[name]
        else:
            settings[key] = default
            continue
        try:
            settings[key] = parse_one(value)
        except Invalid as error:
            errors.append('%s=%s %s.' % (source, _show(value), error))
            settings[key] = default
    values, bool_errors = playbook_booleans(variables)
    settings['continue_healthy'] = values['node_prep_continue_healthy']
    settings['errors'] = errors + bool_errors
    return settings


def playbook_booleans(variables, where=''):
    """({name: bool} of PLAYBOOK_BOOLEANS, their defaults where not given, [errors])."""
    values = {}
    errors = []
    for name, default in sorted(PLAYBOOK_BOOLEANS.items()):
        value = variables.get(name)
        if _blank(value):
            values[name] = default
            continue
        try:
            values[name] = _bool(value)
        except Invalid as error:
            errors.append('%s%s=%s %s.' % ('%s: ' % where if where else '', name, _show(value), error))
            values[name] = default
    return values, errors
