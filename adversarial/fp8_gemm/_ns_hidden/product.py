"""Helper of X21_imports_a_namespace_package_sibling.py: a module of a folder with no __init__.py (a PEP 420
namespace package) naming the forbidden operator literally (`torch.matmul`). Not a case."""

import torch


def product(a, b):
    return torch.matmul(a, b)
