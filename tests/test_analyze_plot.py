"""The pictures of verify.analyze.plot: files, axes, and the numbers drawn."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import verify
from verify.analyze.plot import (
    _colours,
    _label_spots,
    cosine_tie_points,
    plot_cosine_ties,
    plot_head,
)
from verify.io.matrix import read_matrix

pytest.importorskip("matplotlib")

C2 = Path(__file__).resolve().parents[1] / "examples" / "c2.json"
PNG = b"\x89PNG\r\n\x1a\n"
RANDOM40 = np.round(np.random.default_rng(0).standard_normal((40, 2)) * 8).astype(int).tolist()


@pytest.fixture(scope="module")
def c2():
    return verify.analyze_head(read_matrix(C2), neighbours=4)


@pytest.fixture(scope="module")
def random40():
    return verify.analyze_head(RANDOM40)


def test_head_figure_written(tmp_path, c2):
    fig = c2.plot(tmp_path / "c2.png", title="C.2")
    data = (tmp_path / "c2.png").read_bytes()
    assert data.startswith(PNG) and len(data) > 10_000
    left, right = fig.axes
    assert left.get_title() == "unembeddings $w_i$, hull and tie pairs"
    assert right.get_xlabel() == "input $x_1$" and right.get_ylabel() == "input $x_2$"
    # one number per label, at the spot chosen for it
    numbers = {t.get_gid(): t.get_text() for t in left.texts if t.get_gid()}
    assert numbers == {f"label-{i}": str(i) for i in range(c2.n)}


def test_head_figure_without_a_path_is_returned(tmp_path, c2):
    fig = c2.plot()
    assert type(fig).__name__ == "Figure"
    assert not list(tmp_path.iterdir())
    assert plot_head(read_matrix(C2)) is not None


def test_head_figure_needs_dimension_2():
    a = verify.analyze_head([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match="dimension 2.*this one has dimension 3"):
        a.plot()
    with pytest.raises(ValueError, match="dimension 3"):
        plot_head([[1, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match="bias"):
        verify.analyze_head([[1, 0], [0, 1]], bias=[0, 1]).plot()
    with pytest.raises(ValueError, match="'head' or 'cosine'"):
        a.plot(kind="ranking")


def test_a_missing_matplotlib_names_the_install_command(monkeypatch, c2):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install matplotlib"):
        c2.plot()
    with pytest.raises(ImportError, match=r"pip install matplotlib"):
        c2.plot(kind="cosine")


def test_label_numbers_keep_clear_of_other_points():
    P = np.array(RANDOM40, dtype=float)
    scale = 0.06 * 1.25 * np.abs(P).max()
    spots = _label_spots(P, scale)
    assert np.allclose(np.linalg.norm(spots - P, axis=1), scale)
    for i, spot in enumerate(spots):
        others = np.delete(P, i, axis=0)
        assert np.linalg.norm(others - spot, axis=1).min() > 0.5 * scale, i
    gaps = [np.linalg.norm(spots[i] - spots[j]) for i in range(40) for j in range(i)]
    assert min(gaps) > 0.5 * scale


def test_neighbouring_regions_have_distinct_colours(random40):
    P = np.array(RANDOM40, dtype=float)
    winners = random40.argmax.argmaxable
    colours = _colours(40, P, winners)
    order = sorted(winners, key=lambda i: np.arctan2(P[i, 1], P[i, 0]))
    for a, b in zip(order, order[1:] + order[:1]):
        assert colours[a] != colours[b]
    assert {colours[i] for i in random40.argmax.unargmaxable} == {"0.55"}
    # eleven regions: the wrap-around from the last to the first differs too
    angles = np.linspace(0, 2 * np.pi, 11, endpoint=False)
    Q = np.c_[np.cos(angles), np.sin(angles)]
    colours = _colours(11, Q, range(11))
    assert all(colours[k] != colours[(k + 1) % 11] for k in range(11))


def test_cosine_figure_draws_the_results_numbers(tmp_path, c2):
    fig = plot_cosine_ties(c2, tmp_path / "cos.png")
    assert (tmp_path / "cos.png").read_bytes().startswith(PNG)
    strip, histogram = fig.axes
    assert "cosine" in strip.get_xlabel() and "cosine" in histogram.get_xlabel()
    assert strip.get_ylabel() == "neighbour rank by cosine (1 = nearest)"
    assert histogram.get_ylabel() == "pairs (label, neighbour)"
    points = cosine_tie_points(c2)
    expected = [(i, r, k, cos, c2.ties.can_tie(i, k))
                for i, near in enumerate(c2.cosine.neighbours)
                for r, (k, cos) in enumerate(near, start=1)]
    assert points == expected and len(points) == 5 * 4
    for verdict, text in ((True, "can tie"), (False, "cannot tie")):
        drawn = next(c for c in strip.collections if c.get_gid() == f"cosine-{text}")
        xy = drawn.get_offsets()
        chosen = [(r, cos) for _, r, _, cos, v in points if v is verdict]
        assert sorted(xy[:, 0]) == sorted(cos for _, cos in chosen)
        # each dot within its rank's band
        assert sorted(np.round(xy[:, 1])) == sorted(r for r, _ in chosen)
        bars = [p for p in histogram.patches if p.get_gid() == f"histogram-{text}"]
        assert sum(p.get_height() for p in bars) == len(chosen)
    assert histogram.get_title() == (f"nearest neighbour cannot tie: "
                                     f"{c2.cosine.nearest_not_tie} of 5 labels")


def test_cosine_figure_through_plot(tmp_path, random40):
    fig = random40.plot(tmp_path / "r.png", kind="cosine", title="forty")
    assert fig._suptitle.get_text() == "forty"
    assert (tmp_path / "r.png").stat().st_size > 10_000
    strip = fig.axes[0]
    drawn = sum(len(c.get_offsets()) for c in strip.collections)
    assert drawn == sum(len(near) for near in random40.cosine.neighbours)


def test_cosine_figure_of_a_head_in_dimension_3(tmp_path):
    a = verify.analyze_head([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [-1, 0, 0]])
    fig = a.plot(kind="cosine")
    assert len(fig.axes) == 2


def test_characters_the_font_cannot_draw_give_one_warning(tmp_path):
    """matplotlib warns once per missing character, with its own file and line; the
    figure gives one MissingGlyphWarning naming them (private-use characters: no font
    draws them)."""
    import warnings

    from verify.analyze.plot import MissingGlyphWarning, plot_head

    W = np.array([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plot_head(W, tmp_path / "p.png", names=["a", "\ue000", "\ue001\ue000", "b", "c"])
    assert (tmp_path / "p.png").stat().st_size > 0
    glyphs = [w for w in caught if "glyph" in str(w.message).lower()]
    assert [w.category for w in glyphs] == [MissingGlyphWarning]
    assert '"\\ue000", "\\ue001"' in str(glyphs[0].message)


def test_the_command_turns_the_glyph_warning_into_a_note(tmp_path, run_cli):
    import json

    from safetensors.numpy import save_file

    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    W = np.array([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]], dtype=np.float32)
    save_file({"lm_head.weight": W}, str(ckpt / "model.safetensors"))
    vocab = {t: i for i, t in enumerate(["a", "\ue000", "b", "c", "d"])}
    (ckpt / "tokenizer.json").write_text(json.dumps({"model": {"vocab": vocab}}))
    out = tmp_path / "h.png"
    code, _, err = run_cli(["analyze", "--matrix", str(ckpt), "--plot", str(out), "--quiet"])
    assert code == 0 and out.stat().st_size > 0
    notes = [line for line in err.splitlines() if "glyph" in line.lower()]
    assert notes == [(f'verify: note: {out}: the figure\'s font has no glyph for "\\ue000" '
                      "(drawn as boxes; the report and --json hold the names)")]
