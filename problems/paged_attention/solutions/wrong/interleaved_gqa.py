"""Known wrong: the wrong grouped-query mapping. Query head h must read KV head h // G (consecutive query
heads share a KV head, as in Llama and every GQA checkpoint); this reads KV head h % Hkv (the
interleaved mapping), which is only right when G = 1. Implemented with the house kernel by permuting the
query heads in and the output heads back out.
"""

from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()


def run(state, q, block_table, seq_lens):
    B, H, D = q.shape
    hkv = state["k_cache"].shape[2]
    G = H // hkv
    # head h = g * Hkv + kv goes to slot kv * G + g, where the house kernel pairs it with KV head kv
    q_interleaved = q.reshape(B, G, hkv, D).transpose(1, 2).reshape(B, H, D).contiguous()
    out = house.paged_decode(q_interleaved, state["k_cache"], state["v_cache"], block_table, seq_lens)
    return out.reshape(B, hkv, G, D).transpose(1, 2).reshape(B, H, D).contiguous()
