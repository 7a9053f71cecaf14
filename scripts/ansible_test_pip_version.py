"""Print the pip version(s) ansible-test bootstraps into its virtual environments."""
import os
import re

import ansible_test

SOURCE = os.path.join(os.path.dirname(ansible_test.__file__), '_internal', 'python_requirements.py')

with open(SOURCE, encoding='utf-8') as handle:
    text = handle.read()
print('\n'.join(sorted(set(re.findall(r"pip='([0-9.]+)'", text)))))
