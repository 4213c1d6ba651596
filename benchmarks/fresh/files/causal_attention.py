"""A single causal multi-head self-attention block with layer norm, and a next-token loss."""

import numpy as np

N_HEADS = 2


def layer_norm(x, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps)


def softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def attention(params, x):
    T, d = x.shape
    dh = d // N_HEADS
    mask = np.tril(np.ones((T, T), dtype=bool))
    h = layer_norm(x)
    heads = []
    for i in range(N_HEADS):
        q = h @ params["Wq"][:, i * dh : (i + 1) * dh]
        k = h @ params["Wk"][:, i * dh : (i + 1) * dh]
        v = h @ params["Wv"][:, i * dh : (i + 1) * dh]
        scores = q @ k.T / np.sqrt(dh)
        scores = np.where(mask, scores, -1e9)
        heads.append(softmax(scores) @ v)
    return x + np.concatenate(heads, axis=-1) @ params["Wo"]


def loss(params, x, targets):
    out = attention(params, x)
    logits = out @ params["Wout"]
    logp = logits - np.log(np.sum(np.exp(logits), axis=-1, keepdims=True))
    return -np.mean(logp[np.arange(len(targets)), targets])
