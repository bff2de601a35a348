# SPDX-License-Identifier: MIT
"""Bad arguments raise TypeError or ValueError whose message names the
argument (and the row)."""
import numpy as np
import pandas as pd
import pytest
import uriscan

CALLS = [
    lambda u: uriscan.scan(u),
    lambda u: uriscan.normalize(u).tolist(),
    lambda u: uriscan.resolve(u, "http://a/").tolist(),
    lambda u: uriscan.fingerprint(u),
    lambda u: uriscan.first_occurrence(u),
    lambda u: uriscan.risks(u),
]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("urls, error, pattern", [
    ("http://a/", TypeError, r"^urls: .*single str .*wrap it in a list"),
    (b"http://a/", TypeError, r"^urls: .*single bytes"),
    (42, TypeError, r"^urls: expected a list .* got int"),
    ({"http://a/"}, TypeError, r"^urls: .* got set"),
    (["http://a/", 3], TypeError,
     r"^urls\[1\]: expected str or bytes, got int"),
    (["http://a/", 1.5], TypeError, r"^urls\[1\]: .*float"),
    (np.array([1.5, 2.5]), TypeError, r"^urls: .*dtype float64"),
    (np.array([["a"]]), ValueError, r"^urls: expected a 1-D array"),
    (np.array(["a", 1], dtype=object), TypeError, r"^urls\[1\]: .*int"),
    (["\ud800"], ValueError, r"^urls\[0\]: cannot be encoded as UTF-8"),
])
def test_bad_urls(call, urls, error, pattern):
    with pytest.raises(error, match=pattern):
        call(urls)


@pytest.mark.parametrize("call", [uriscan.normalize, uriscan.fingerprint,
                                  uriscan.first_occurrence])
def test_bad_profile(call):
    with pytest.raises(ValueError, match=r"^profile: 'sheme' is not a profile"):
        call(["http://a/"], "sheme")
    with pytest.raises(TypeError, match=r"^profile: expected str, got int"):
        call(["http://a/"], 1)
    with pytest.raises(TypeError, match=r"^tracking_params: expected a list"):
        call(["http://a/"], "crawler", "utm_*")
    with pytest.raises(TypeError, match=r"^tracking_params\[1\]: expected str"):
        call(["http://a/"], "crawler", ["a", 2])


def test_bad_base():
    with pytest.raises(ValueError, match=r"^base: not a valid URI: "
                       r"disallowed-byte at byte 7"):
        uriscan.resolve(["g"], "http:a b").tolist()
    with pytest.raises(ValueError, match=r"^base: '/a/b' is a relative "
                       r"reference; a base URI needs a scheme"):
        uriscan.resolve(["g"], "/a/b").tolist()
    with pytest.raises(TypeError, match=r"^base: expected str or bytes"):
        uriscan.resolve(["g"], None).tolist()
    assert uriscan.resolve(["g"], b"http://a/b").tolist() == ["http://a/g"]


def test_bad_component_name():
    spans = uriscan.scan(["http://a/"])
    with pytest.raises(ValueError, match=r"^name: 'hostname' is not a "
                       r"component"):
        spans.component("hostname")
    with pytest.raises(TypeError, match=r"^name: expected str"):
        spans.component(3)


@pytest.mark.parametrize("data, offsets, error, pattern", [
    ("http://a", np.array([0, 8], np.int32), TypeError,
     r"^data: .*got str: encode it first"),
    (12, np.array([0, 8], np.int32), TypeError, r"^data: expected bytes-like"),
    (np.zeros(4, np.int32), np.array([0, 1], np.int32), TypeError,
     r"^data: expected a 1-D buffer of bytes"),
    (b"abc", np.array([0, 1], np.float64), TypeError,
     r"^offsets: expected int32, uint32 or int64"),
    (b"abc", np.array([0, 1], np.int16), TypeError,
     r"^offsets: expected int32, uint32 or int64"),
    (b"abc", np.array([0, 1], np.uint64), TypeError,
     r"^offsets: expected int32, uint32 or int64"),
    (b"abc", np.array([0, 1], ">i4"), TypeError, r"^offsets: .*native"),
    (b"abc", np.array([], np.int32), ValueError,
     r"^offsets: expected count \+ 1 values"),
    (b"abc", np.array([[0, 1]], np.int32), ValueError,
     r"^offsets: expected a 1-D array"),
    (b"abc", np.array([0, 2, 1], np.int32), ValueError,
     r"^offsets: offsets\[2\] = 1 is less than offsets\[1\] = 2"),
    (b"abc", np.array([-1, 2], np.int64), ValueError,
     r"^offsets: offsets\[0\] is -1"),
    (b"abc", np.array([0, 4], np.int32), ValueError,
     r"^offsets: the last offset, 4, is past the end of data \(3 bytes\)"),
    (b"abc", np.array([0, 2, 4, 6], np.int32)[::2], ValueError,
     r"^offsets: the buffer must be C-contiguous"),
    (b"abc", "0 1", TypeError, r"^offsets: expected a 1-D array"),
])
def test_bad_batch(data, offsets, error, pattern):
    with pytest.raises(error, match=pattern):
        uriscan.Batch(data, offsets)


def test_error_name():
    assert uriscan.error_name(0) == "none"
    with pytest.raises(ValueError, match=r"^kind: 99 is not an error kind"):
        uriscan.error_name(99)


def test_namespace_holds_the_api_only():
    # Submodules (uriscan.dask, uriscan.scrapy) are names of the package
    # once imported, as any test module may import them first.
    public = {n for n in dir(uriscan) if not n.startswith("_")}
    assert public <= set(uriscan.__all__) | {"dask", "scrapy"}, public - set(
        uriscan.__all__)
    for name in uriscan.__all__:
        assert hasattr(uriscan, name), name


@pytest.mark.parametrize("missing", [None, float("nan"), np.nan, pd.NA])
def test_missing_values_are_invalid_rows(missing):
    for urls in (["http://a/", missing, "/b?q=1"],
                 pd.Series(["http://a/", missing, "/b?q=1"], dtype=object),
                 np.array(["http://a/", missing, "/b?q=1"], dtype=object)):
        spans = uriscan.scan(urls)
        assert spans.valid.tolist() == [True, False, True]
        assert uriscan.error_name(spans.error_kind)[1] == "disallowed-byte"
        assert uriscan.normalize(urls).tolist() == ["http://a/", None, "/b?q=1"]
        assert uriscan.fingerprint(urls)[1] == 0
        assert uriscan.columns(urls, ["host_nowww"])["host_nowww"].tolist() \
            == ["a", None, None]
        assert uriscan.params(urls)["name"].tolist() == ["q"]
    strings = pd.Series(["http://a/", None], dtype="string")  # pd.NA inside
    assert uriscan.normalize(strings).tolist() == ["http://a/", None]
