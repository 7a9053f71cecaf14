"""Offline stand-in for ansible-test's get-pip bootstrap script.

ansible-test downloads https://ci-files.testing.ansible.com/ansible-test/get-pip-<version>.py to
bootstrap pip in the virtual environments it creates, and caches it as
~/.ansible/test/cache/get_pip_<version>.py. That host is not reachable from our CI, so
scripts/lib.sh places this file in the cache instead. It does what get-pip does, with what Python
itself ships: install pip with ensurepip, then let that pip install the exact packages ansible-test
asked for (pip==<version> and friends) from the configured package index.
"""
import subprocess
import sys


def main():
    args = [a for a in sys.argv[1:] if a not in ('--no-setuptools', '--no-wheel')]
    subprocess.check_call([sys.executable, '-m', 'ensurepip', '--default-pip'])
    subprocess.check_call([sys.executable, '-m', 'pip', 'install'] + args)


if __name__ == '__main__':
    main()
