"""Helper of X21_hides_a_sibling_module_from_the_audit.py: names the forbidden operator literally
(`torch.matmul`), which the judge's syntax-tree audit would refuse if it read this file. Not a case."""

import torch


def product(a, b):
    return torch.matmul(a, b)
