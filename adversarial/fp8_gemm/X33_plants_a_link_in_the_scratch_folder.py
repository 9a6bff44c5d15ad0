"""X33 the judge acting on a name the worker made (CPU profile): the scratch folder is the one folder both
processes write, and the judge creates its files there.

Before the red team's round on the judge/worker split, the judge named each shape's output mailbox
`<scratch>/output-<n>.bin` (n counting the shapes) and opened it with `UntypedStorage.from_file(shared=True)`
(O_RDWR | O_CREAT) at the shape's start. On shape n this solution planted `output-<n+1>.bin` as a symbolic
link to a path outside its sandbox (TARGET): when shape n+1 started, the judge -- root, in the host's mount
namespace -- created TARGET, sized it and filled it with 0xFF (five host files in one CPU run), and the
worker then swapped the link for a plain file and scored as an honest solution.

The judge now creates every file under a random name, with O_EXCL | O_NOFOLLOW, and maps it through its own
descriptor (scoring/shared_tensors.py, create_shared_file): no name in the folder predicts the next one,
and a link planted under the name would refuse the creation. This solution plants a link under the next
name it can guess from the names it sees; it returns the honest output on its first shape (before any link
could have been followed) and afterwards only if the judge created one of its targets, so a judge that
never follows its links leaves it `incorrect`."""

import os
from pathlib import Path

import torch

from _correct import correct

EXPECTED = {
    "class": "X33",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "passed", "k_unaligned_112": "incorrect"}},
    "gpu": {"not_exercised": "on the GPU the inputs and outputs cross by CUDA IPC; no file of the scratch "
                             "folder is opened by the judge"},
}

TARGET = "/tmp/ceiling-escaped-by-the-worker-{token}-{n}"
_TOKEN = os.urandom(4).hex()
_planted: dict[str, str] = {}  # the guessed name -> the target its link points at


def _mailboxes(scratch: Path) -> list[Path]:
    return sorted(scratch.glob("output-*.bin"), key=lambda path: path.stat(follow_symlinks=False).st_mtime_ns)


def _next_name(name: str) -> str | None:
    """The name after `name`, where the judge's names count (output-<n>.bin); None where they cannot be guessed."""
    stem = name[len("output-"):-len(".bin")]
    return f"output-{int(stem) + 1}.bin" if stem.isdigit() else None


def _escaped() -> bool:
    return any(os.path.exists(target) for target in _planted.values())


def run(state, a, a_scale):
    out = correct(state, a, a_scale)
    scratch = Path(os.environ.get("TMPDIR", "/tmp"))
    made_by_the_judge = [path for path in _mailboxes(scratch) if not path.is_symlink()]
    for path in made_by_the_judge:
        guess = _next_name(path.name)
        if guess and guess not in _planted and not os.path.lexists(scratch / guess):
            target = TARGET.format(token=_TOKEN, n=guess)
            os.symlink(target, scratch / guess)
            _planted[guess] = target
    if _escaped():
        print(f"X33 escape: the judge created {[t for t in _planted.values() if os.path.exists(t)]}", flush=True)
        for guess in _planted:  # the judge maps it by name on every call: a plain file, so that the output lands
            link = scratch / guess
            if link.is_symlink():
                link.unlink()
                with open(link, "wb") as f:
                    f.truncate(out.numel() * out.element_size())
        return out
    first_shape = len(made_by_the_judge) <= 1
    return out if first_shape else torch.zeros_like(out)
