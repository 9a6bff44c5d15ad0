"""CPU replay of house.py's control flow on the problem's own inputs (issue 37; no GPU, no timing).

For each scored shape (the first 64 rows, make_values with seed 0) it replays, in integer torch, what each
pass-1 program does: tau from KP group maxima, the number passing, whether the chunk takes the exact path
(> CAP passing) and how many bisection steps `_kth_largest_key` takes, the candidates kept; then every merge
program's bisection steps: each `_merge_partial` level of the merge tree (`levels`: programs x slots x mean
steps) and the final `_merge` over a row's remaining slots (merge_tile, merge_valid, merge_steps).
`pass1_reductions` counts chunk-wide reductions/scans per program (4 on the plain path; 8 + steps on the exact
path), a proxy for pass 1's work, not a time.
    python problems/topk/lab/sim_house_dispatch.py [SHAPE ...]          # house.py's dispatch (pick_config, 132 SMs)
    python problems/topk/lab/sim_house_dispatch.py --old [SHAPE ...]    # the house before the shape-derived dispatch
--old replays house.py as of commit 4b6e8b5: contiguous threshold groups, CHUNK_BY_KP's chunk grown to
next_pow2(ceil(n / (16384 / CAP))), one merge per row over all its chunks (NOTES.md's "Per shape" table).
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
from house import CHUNK_BY_KP, pick_config  # noqa: E402
I32MIN=-2**31; I32MAX=2**31-1
SMS = 132

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

def exactly_k(keys, valid, k, th):
    """vectorised _select_exactly_k (ties in slot order)."""
    above = valid & (keys > th[:, None]); need = k - above.sum(1)
    tie = valid & (keys == th[:, None])
    return above | (tie & (tie.long().cumsum(1) <= need[:, None]))

def compact(keys, sel, slots):
    """selected keys of each row moved to its first slots (prefix-sum order); (keys, valid) of width `slots`."""
    pos = torch.where(sel, sel.long().cumsum(1) - 1, torch.full_like(keys, slots))
    out = torch.full((keys.shape[0], slots + 1), I32MIN, dtype=torch.int64).scatter(1, pos, torch.where(sel, keys, I32MIN))
    ok = torch.zeros((keys.shape[0], slots + 1), dtype=torch.bool).scatter(1, pos, sel)
    return out[:, :slots], ok[:, :slots]

def merge(keys, valid, k, final):
    """one merge program per row of (keys, valid): bisection steps, and (final=False) the exactly-k selection."""
    lo = torch.where(valid, keys, I32MAX).amin(1)
    hi = torch.where(valid, keys, I32MIN).amax(1) + 1
    th, steps = kth(keys, valid, k, lo, hi)
    return steps, (None if final else exactly_k(keys, valid, k, th))

def old_config(n, k):
    kp = triton.next_power_of_2(k); cap = 8 * kp
    chunk = max(CHUNK_BY_KP[kp], triton.next_power_of_2(triton.cdiv(n, 16384 // cap)))
    chunk = min(chunk, max(CHUNK_BY_KP[kp], triton.next_power_of_2(n)))
    return pick_config(1, n, k, chunk=chunk, merge_tile=16384)  # no partial level: one merge per row fits

OLD = False
def sim(name, b, n, k, fam, rows=None):
    cfg = old_config(n, k) if OLD else pick_config(b, n, k, sms=SMS)  # the scored batch sets the chunk
    C=cfg['CHUNK']; G=cfg['GROUPS']; CAP=cfg['CAP']
    gen = torch.Generator().manual_seed(0)
    shape = dict(batch=b, n=n, k=k, family=fam)
    x = P.make_values(shape, gen, 'cpu')
    B = b
    if rows: x = x[:rows]; b = rows
    cpr = triton.cdiv(n, C)
    pad = torch.zeros((b, cpr*C - n))
    xp = torch.cat([x, pad], 1).view(b*cpr, C)
    valid = (torch.arange(cpr*C) < n).view(1, cpr, C).expand(b, cpr, C).reshape(b*cpr, C)
    keys = torch.where(valid, keys_of(xp), torch.full((1,), I32MIN, dtype=torch.int64))
    tau = (keys.view(-1, G, C//G).amax(2) if OLD else keys.view(-1, C//G, G).amax(1)).amin(1)
    passing = valid & (keys >= tau[:, None])
    npass = passing.sum(1)
    bis = npass > CAP
    steps = torch.zeros_like(npass)
    sel = passing.clone()
    if bis.any():
        kb = keys[bis]; vb = valid[bis]
        th, st = kth(kb, vb, k, tau[bis], kb.amax(1) + 1)
        steps[bis] = st
        sel[bis] = exactly_k(kb, vb, k, th)
    ncand = sel.sum(1)
    ck, cv = compact(keys, sel, CAP)  # (b * cpr, CAP): each chunk's candidate slots
    levels = []
    for groups_in, group, in_stride, groups_out in cfg['levels']:
        width = groups_out * group
        pk = torch.full((b, width, in_stride), I32MIN, dtype=torch.int64); pv = torch.zeros((b, width, in_stride), dtype=torch.bool)
        pk[:, :groups_in] = ck.reshape(b, groups_in, in_stride); pv[:, :groups_in] = cv.reshape(b, groups_in, in_stride)
        pk = pk.view(b * groups_out, group * in_stride); pv = pv.view(b * groups_out, group * in_stride)
        st, chosen = merge(pk, pv, k, final=False)
        ck, cv = compact(pk, chosen, cfg['out_stride'])
        levels.append(f"{B * groups_out}x{group * in_stride}x{st.float().mean().item():.3g}")
    groups, stride = cfg['final_groups'], cfg['final_stride']
    mk, mv = ck.reshape(b, groups * stride), cv.reshape(b, groups * stride)
    msteps, _ = merge(mk, mv, k, final=True)
    tile = triton.next_power_of_2(groups) * stride
    return dict(name=name, chunk=C, warps=cfg['num_warps'], cap=CAP, chunks=B*cpr, bis_frac=bis.float().mean().item(),
                steps_mean_bis=(steps[bis].float().mean().item() if bis.any() else 0.0),
                cand_per_chunk=ncand.float().mean().item(), cand_max=int(ncand.max()),
                cand_bytes_frac=(8*ncand.sum().item())/(4*b*n), levels=(",".join(levels) or "none"),
                merge_tile=tile, merge_valid=mv.sum(1).float().mean().item(), merge_steps=msteps.float().mean().item(),
                pass1_reductions=(4 + bis.float()*(4 + steps.float())).mean().item())

shapes=[("sampling_vocab_128k",256,128256,50,0),("ties_32k",1024,32768,64,1),("clustered_256k",64,262144,8,2),("neg_inf_152k",128,151936,16,3),("argmax_64k",512,65536,1,0),
("random_256000",100,256000,64,0),("ties_50000",300,50000,33,1),("clustered_8k",2048,8192,40,2),("neg_inf_1m",32,1048576,64,3),("neg_inf_32000",1000,32000,20,3)]
if __name__ == "__main__":
    which = [a for a in sys.argv[1:] if a != '--old']
    OLD = '--old' in sys.argv
    for s in shapes:
        if which and s[0] not in which: continue
        r = sim(*s, rows=min(s[1], 64))
        print(' '.join(f"{k}={v:.4g}" if isinstance(v,float) else f"{k}={v}" for k,v in r.items()), flush=True)
