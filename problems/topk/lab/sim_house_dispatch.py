"""CPU replay of house.py's control flow on the problem's own inputs (issue 37; no GPU, no timing).

For each scored shape (the first 64 rows, make_values with seed 0) it replays, in integer torch, what each
pass-1 program does: tau from KP group maxima, the number passing, whether the chunk takes the exact path
(> CAP passing) and how many bisection steps `_kth_largest_key` takes, the candidates kept; then the merge's
bisection steps over a row's candidates. `pass1_reductions` counts chunk-wide reductions/scans per program
(4 on the plain path; 8 + steps on the exact path), a proxy for pass 1's work, not a time.
    python problems/topk/lab/sim_house_dispatch.py [SHAPE ...]          # house.py's dispatch
    python problems/topk/lab/sim_house_dispatch.py --cand [SHAPE ...]   # strided groups, CHUNK 4096 where house grows it
(with --cand the merge_* columns still describe one merge over the whole row, not the candidate's merge tree).
"""
import sys
from pathlib import Path

import torch
import triton

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "solutions"))
import problem as P  # noqa: E402
from house import pick_config  # noqa: E402
I32MIN=-2**31; I32MAX=2**31-1

def keys_of(x):
    b = x.view(torch.int32).to(torch.int64)
    k = b ^ ((b >> 31) & 0x7FFFFFFF)
    k = torch.where(torch.isnan(x), torch.full_like(k, I32MAX), k)
    return k

def kth(keys, valid, k, lo, hi):
    """vectorised _kth_largest_key: returns threshold and step count per row."""
    steps = torch.zeros_like(lo)
    c = ((keys > lo[:, None]) & valid).sum(1)
    hi = torch.where(c < k, lo + 1, hi)
    while True:
        act = hi - lo > 1
        if not act.any(): break
        mid = lo + (hi - lo) // 2
        cnt = ((keys >= mid[:, None]) & valid).sum(1)
        up = act & (cnt >= k); dn = act & (cnt < k)
        lo = torch.where(up, mid, lo); hi = torch.where(dn, mid, hi)
        steps += act.long()
    return lo, steps

STRIDED = False
CHUNK_OVERRIDE = {}
def sim(name, b, n, k, fam, rows=None):
    cfg = pick_config(n, k); C=CHUNK_OVERRIDE.get(name, cfg['CHUNK']); G=cfg['GROUPS']; CAP=cfg['CAP']
    gen = torch.Generator().manual_seed(0)
    shape = dict(batch=b, n=n, k=k, family=fam)
    x = P.make_values(shape, gen, 'cpu')
    if rows: x = x[:rows]; b = rows
    cpr = triton.cdiv(n, C)
    pad = torch.zeros((b, cpr*C - n))
    xp = torch.cat([x, pad], 1).view(b*cpr, C)
    valid = (torch.arange(cpr*C) < n).view(1, cpr, C).expand(b, cpr, C).reshape(b*cpr, C)
    keys = torch.where(valid, keys_of(xp), torch.full((1,), I32MIN, dtype=torch.int64))
    tau = (keys.view(-1, C//G, G).amax(1) if STRIDED else keys.view(-1, G, C//G).amax(2)).amin(1)
    passing = valid & (keys >= tau[:, None])
    npass = passing.sum(1)
    bis = npass > CAP
    ncand = npass.clone()
    steps = torch.zeros_like(npass)
    if bis.any():
        kb = keys[bis]; vb = valid[bis]
        th, st = kth(kb, vb, k, tau[bis], kb.amax(1) + 1)
        steps[bis] = st
        ncand[bis] = torch.minimum(vb.sum(1), torch.tensor(k))
    # merge: per row, candidates of its chunks; row's candidate keys = top ncand of each chunk (values don't matter except for
    # threshold) -> recompute exactly: candidates are passing (non-bis) or exactly-k selection (bis)
    cand_keys=[]
    sel = passing.clone()
    if bis.any():
        kb = keys[bis]; vb = valid[bis]
        th, _ = kth(kb, vb, k, tau[bis], kb.amax(1) + 1)
        above = vb & (kb > th[:, None]); need = k - above.sum(1)
        tie = vb & (kb == th[:, None])
        sel[bis] = above | (tie & (tie.long().cumsum(1) <= need[:, None]))
    selr = sel.view(b, cpr*C); keyr = keys.view(b, cpr*C)
    # merge tile: CHUNKS_POW2*CAP slots; only selected are valid
    mk = torch.where(selr, keyr, torch.full((1,), I32MIN, dtype=torch.int64))
    lo = torch.where(selr, keyr, torch.full((1,), I32MAX, dtype=torch.int64)).amin(1)
    hi = mk.amax(1) + 1
    _, msteps = kth(mk, selr, k, lo, hi)
    tile = triton.next_power_of_2(cpr) * CAP
    return dict(name=name, chunk=C, cap=CAP, chunks=b*cpr, bis_frac=bis.float().mean().item(),
                steps_mean_bis=(steps[bis].float().mean().item() if bis.any() else 0.0),
                cand_per_chunk=ncand.float().mean().item(), cand_max=int(ncand.max()),
                cand_bytes_frac=(8*ncand.sum().item())/(4*b*n),
                merge_tile=tile, merge_valid=selr.sum(1).float().mean().item(), merge_steps=msteps.float().mean().item(),
                pass1_reductions=(4 + bis.float()*(4 + steps.float())).mean().item())

shapes=[("sampling_vocab_128k",256,128256,50,0),("ties_32k",1024,32768,64,1),("clustered_256k",64,262144,8,2),("neg_inf_152k",128,151936,16,3),("argmax_64k",512,65536,1,0),
("random_256000",100,256000,64,0),("ties_50000",300,50000,33,1),("clustered_8k",2048,8192,40,2),("neg_inf_1m",32,1048576,64,3),("neg_inf_32000",1000,32000,20,3)]
which = [a for a in sys.argv[1:] if a != '--cand']
if '--cand' in sys.argv:
    STRIDED = True
    CHUNK_OVERRIDE.update(random_256000=4096, neg_inf_1m=4096)
for s in shapes:
    if which and s[0] not in which: continue
    r = sim(*s, rows=min(s[1], 64))
    print(' '.join(f"{k}={v:.4g}" if isinstance(v,float) else f"{k}={v}" for k,v in r.items()), flush=True)
