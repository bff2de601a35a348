"""uriscan.Batch against hostile offsets and buffers, at random.

Every Batch is either refused at construction (TypeError, ValueError or
OverflowError with a message) or gives, in every function, exactly what
the same rows give as a list of bytes, however the caller's offset array
and buffer are changed afterwards. A crash of the interpreter fails the
whole run.
"""
import random

import numpy as np
import pytest

import uriscan

PIECES = [b"http://", b"https://", b"a.example", b"/", b"?", b"#", b"&",
          b"=", b"x", b"%41", b"%", b"[::1]", b":80", b"@", b" ", b"\x00",
          b"\xe9", b"\n", b"..", b"jsessionid=1", b";"]
DTYPES = [np.int32, np.uint32, np.int64]


def random_data(rng):
    return b"".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 40)))


def random_offsets(rng, n):
    """Offsets that are often right and sometimes wrong in each way."""
    rows = rng.randrange(0, 8)
    cuts = sorted(rng.randrange(0, n + 1) for _ in range(rows + 1))
    kind = rng.randrange(10)
    if kind == 0 and cuts:
        cuts[rng.randrange(len(cuts))] = rng.choice(
            [-1, n + 1, 2**31 - 1, 2**32 - 1, -2**31])
    elif kind == 1 and len(cuts) > 1:
        cuts.reverse()
    elif kind == 2:
        cuts = []
    return cuts


def reference_rows(data, offsets):
    return [bytes(data[offsets[i]:offsets[i + 1]])
            for i in range(len(offsets) - 1)]


def results(urls):
    spans = uriscan.scan(urls)
    out = [spans.component(c) for c in
           ("scheme", "userinfo", "host", "port", "path", "query",
            "fragment")]
    out.append(spans.error_kind.tolist())
    for profile in ("syntax", "scheme", "crawler", "w3lib"):
        out.append(uriscan.normalize(urls, profile).tolist())
        out.append(uriscan.fingerprint(urls, profile).tolist())
    out.append(uriscan.params(urls).values.tolist())
    out.append(uriscan.columns(urls, ["host_nowww", "param_names", "surt"])
               .values.tolist())
    return out


@pytest.mark.parametrize("seed", range(8))
def test_random_batches_match_their_rows_or_are_refused(seed):
    rng = random.Random(seed)
    made = refused = 0
    for _ in range(150):
        data = random_data(rng)
        cuts = random_offsets(rng, len(data))
        dtype = rng.choice(DTYPES)
        wrap = rng.choice([bytes, bytearray, memoryview])
        buffer = wrap(data)
        info = np.iinfo(dtype)
        if any(c < info.min or c > info.max for c in cuts):
            continue  # not a value of this type
        offsets = np.array(cuts, dtype=dtype)
        try:
            batch = uriscan.Batch(buffer, offsets)
        except (TypeError, ValueError, OverflowError) as error:
            assert str(error)
            refused += 1
            continue
        made += 1
        want = results(reference_rows(data, cuts))
        assert results(batch) == want
        # Changing the caller's offsets afterwards changes nothing.
        if len(offsets):
            offsets[rng.randrange(len(offsets))] = np.iinfo(dtype).max
            offsets[rng.randrange(len(offsets))] = 0
        assert results(batch) == want
    assert made > 0 and refused > 0


def test_a_bytearray_under_a_batch_cannot_be_resized():
    data = bytearray(b"http://a/http://b/")
    batch = uriscan.Batch(data, np.array([0, 9, 18], np.int32))
    with pytest.raises(BufferError):
        data.extend(b"x" * 100000)
    assert uriscan.normalize(batch).tolist() == ["http://a/", "http://b/"]
