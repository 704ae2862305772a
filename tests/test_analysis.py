"""Analysis against known values: gate statistics, lesioning, the gradient-norm probe."""

import math
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.ticker import NullLocator

from highwaylab.analysis.gates import class_gate_difference, gate_stats
from highwaylab.analysis.history import LayerHistory, named_layers, named_scalars
from highwaylab.analysis.lesion import lesion_errors
from highwaylab.analysis.plots import layer_lines, layer_maps, layer_step_map, layer_step_maps
from highwaylab.analysis.probe import Stack, input_grad_norms
from highwaylab.callbacks.media import log_figure
from highwaylab.models import FCBackbone
from highwaylab.probe import main as probe_main


def zero_gate_weights(net: FCBackbone) -> None:
    with torch.no_grad():
        for layer in net.layers:
            layer.proj.weight[layer.width:].zero_()  # W_T = 0, so T = sigmoid(b_T) for every input


@pytest.mark.parametrize("bias", [-3.0, -1.0, 0.5])
def test_gate_means_at_init_equal_sigmoid_of_the_bias(bias):
    torch.manual_seed(0)
    net = FCBackbone("highway", depth=6, width=10, input_shape=7, num_classes=3, gate_bias=bias)
    zero_gate_weights(net)
    with torch.no_grad():
        _, internals = net.forward_internals(torch.randn(32, 7))
    stats = gate_stats(internals.gates)
    expected = 1 / (1 + math.exp(-bias))
    torch.testing.assert_close(stats.mean, torch.full((5,), expected))
    torch.testing.assert_close(stats.mean_map, torch.full((5, 10), expected))
    assert stats.closed.tolist() == [1.0 if expected < 0.1 else 0.0] * 5
    assert stats.open.tolist() == [0.0] * 5


def test_class_difference_is_class_mean_minus_overall_mean():
    gates = [torch.tensor([[0.1], [0.3], [0.8]])]  # 1 layer, 3 examples, 1 block
    labels = torch.tensor([0, 0, 1])
    diff = class_gate_difference(gates, labels, num_classes=2)
    overall = 1.2 / 3
    torch.testing.assert_close(diff[:, 0, 0], torch.tensor([0.2 - overall, 0.8 - overall]))


def test_forward_from_continues_the_forward_pass():
    torch.manual_seed(0)
    net = FCBackbone("highway", depth=5, width=6, input_shape=4, num_classes=3, gate_bias=0.0)
    x = torch.randn(8, 4)
    with torch.no_grad():
        logits, internals = net.forward_internals(x)
        torch.testing.assert_close(net.forward_from(1, internals.states[0]), logits)
        torch.testing.assert_close(net.forward_from(3, internals.states[2]), logits)
        torch.testing.assert_close(net.forward_from(5, internals.states[4]), logits)  # head only
        # layer 2 lesioned (copies its input): layer 1, then layers 3 and 4, then the head
        h = net.layers[0](net.stem(x))
        lesioned = net.head(net.layers[3](net.layers[2](h)))
        torch.testing.assert_close(net.forward_from(3, internals.states[1]), lesioned)
    with pytest.raises(IndexError):
        net.forward_from(6, internals.states[0])


def test_lesion_errors_against_a_direct_computation():
    torch.manual_seed(0)
    net = FCBackbone("highway", depth=6, width=8, input_shape=5, num_classes=3, gate_bias=0.5)
    x, y = torch.randn(300, 5), torch.randint(0, 3, (300,))
    baseline, errors = lesion_errors(net, x, y, batch_size=128)
    with torch.no_grad():
        assert baseline == float((net(x).argmax(1) != y).double().mean())
        for k in range(1, 6):
            layers = [layer for j, layer in enumerate(net.layers, start=1) if j != k]
            h = net.stem(x)
            for layer in layers:
                h = layer(h)
            assert errors[k - 1].item() == float((net.head(h).argmax(1) != y).double().mean()), k


def test_lesioning_stops_at_the_layer_where_stop_says_so():
    # pass 79, row 52: before, a Ctrl-C after fitting waited for the whole lesioning (minutes at depth 1000)
    from highwaylab.analysis.lesion import LesionStopped

    net = FCBackbone("highway", depth=6, width=8, input_shape=5, num_classes=3)
    asked = []
    with pytest.raises(LesionStopped, match=r"^stopped at layer 3 of 5$"):
        lesion_errors(net, torch.randn(20, 5), torch.randint(0, 3, (20,)), stop=lambda: asked.append(1) or
                      len(asked) == 3)
    assert net.training  # the mode is restored


def test_lesioning_a_closed_gate_layer_changes_nothing():
    torch.manual_seed(0)
    net = FCBackbone("highway", depth=8, width=12, input_shape=10, num_classes=4, gate_bias=-30.0)
    x, y = torch.randn(200, 10), torch.randint(0, 4, (200,))
    baseline, errors = lesion_errors(net, x, y, batch_size=64)
    assert errors.shape == (7,)
    assert errors.tolist() == [baseline] * 7


def test_probe_reproduces_the_published_orders_of_magnitude():
    # ../shared/science.md: sigmoid plain layer 1 1.67e-19; sigmoid residual 1.27; tanh x3 4.6e3
    assert input_grad_norms(Stack("sigmoid", "plain", 1.0))[0] < 1e-15
    assert 0.5 < input_grad_norms(Stack("sigmoid", "residual", 1.0))[0] < 2
    assert input_grad_norms(Stack("tanh", "plain", 3.0))[0] > 100
    top = input_grad_norms(Stack("tanh", "plain", 1.0))[-1]
    assert 0.5 < top < 2  # layer 30 of tanh plain: 1.07 published


@pytest.mark.slow
def test_probe_command_prints_the_table_and_saves_a_plot(tmp_path, capsys):
    plot = tmp_path / "probe.png"
    probe_main(["--plot", str(plot)])
    out = capsys.readouterr().out
    assert "| stack | layer 30 | layer 20 | layer 10 | layer 1 |" in out
    assert "| sigmoid, plain | 0.247 |" in out  # seed 0, float64: same digits every run
    assert plot.stat().st_size > 10_000
    with pytest.raises(SystemExit):
        probe_main(["--activation", "nope"])


def test_a_figure_that_fails_to_draw_is_skipped_with_a_warning(tmp_path):
    trainer = SimpleNamespace(loggers=[object()], default_root_dir=str(tmp_path))  # a logger without images
    all_nan = np.full((3, 4), np.nan)
    with pytest.warns(UserWarning, match=r"figure gates/mean_map at step 7 skipped: ValueError: .*every"):
        assert log_figure(trainer, "gates/mean_map", lambda: layer_maps([all_nan], ["T"], "t", "T"), 7) \
            is None
    assert not (tmp_path / "figures").exists()
    path = log_figure(trainer, "gates/mean_map", lambda: layer_maps([np.ones((3, 4))], ["T"], "t", "T"), 7)
    assert path == tmp_path / "figures" / "gates_mean_map" / "step_0000007.png"


def test_layer_step_map_keeps_its_fixed_log_range_layer_1_on_top_and_marks_the_initial_value():
    steps, values = [0, 200, 430], np.array([[0.01, 0.01], [0.02, 0.3], [0.05, 0.5]])  # (S, L)
    fig = layer_step_map(steps, values, "mean T", "mean T", vmin=1e-3, vmax=1.0, log=True,
                         cbar_marks=[(0.01, "initial mean 0.01")])
    ax, cbar = fig.axes
    mesh = ax.collections[0]
    assert (mesh.norm.vmin, mesh.norm.vmax) == (1e-3, 1.0)
    assert ax.get_ylim() == (2.5, 0.5)  # layer 1 on top
    assert ax.get_xlim() == (0.0, 431.0)  # each column holds until the next measurement; the last one step
    assert list(ax.xaxis.get_minor_locator().locs) == steps  # the measurements are marked
    assert "initial mean 0.01" in cbar.get_ylabel() and len(cbar.lines) == 1
    np.testing.assert_array_equal(mesh.get_array().reshape(2, 3), values.T)
    with pytest.raises(ValueError, match="no value to draw"):
        layer_step_map(steps, np.zeros((3, 2)), "norms", "norm", log=True)


def test_layer_step_maps_of_two_quantities_give_each_panel_its_own_log_scale_and_bar():
    """``grad_norm/by_step``: the parameter gradient norms (about 1e-3) and the input ones (about 1)
    are different quantities; on one scale the parameter panel would be one colour. Each panel's
    colour scale spans its own values, with its own bar beside it; one quantity shares one bar."""
    steps = [0, 10]
    params = np.array([[1e-3, 2e-3, 4e-3], [2e-3, 3e-3, 5e-3]])  # (S, L)
    inputs = np.array([[0.5, 1.0, 2.0], [0.4, 1.5, 3.0]])
    fig = layer_step_maps(steps, {"parameters": params, "inputs": inputs}, "norms", "norm", log=True,
                          shared_scale=False)
    panels, bars = fig.axes[:2], fig.axes[2:]
    assert [(ax.collections[0].norm.vmin, ax.collections[0].norm.vmax) for ax in panels] == [
        (1e-3, 5e-3), (0.4, 3.0)]
    assert len(bars) == 2
    for panel, bar in zip(panels, bars, strict=True):  # each bar right of its own panel, not on the next
        assert panel.get_position().x1 < bar.get_position().x0 < panel.get_position().x1 + 0.05
    shared = layer_step_maps(steps, {"parameters": params, "inputs": inputs}, "norms", "norm", log=True)
    assert len(shared.axes) == 3
    scales = {(ax.collections[0].norm.vmin, ax.collections[0].norm.vmax) for ax in shared.axes[:2]}
    assert scales == {(1e-3, 3.0)}


def test_a_measurement_is_drawn_for_its_cadence_and_the_steps_after_it_are_left_blank():
    # new-user pass 60: grad_norm/by_step of a 30-step run, measured every 200 steps, painted step 0's
    # value over all 30 steps, as if measured there
    params, inputs = np.array([[1e-3, 2e-3]]), np.array([[0.5, 1.0]])  # (S, L): one measurement, step 0
    fig = layer_step_maps([0], {"parameters": params, "inputs": inputs}, "norms", "norm", log=True,
                          end_step=30, shared_scale=False, hold=5)
    mesh = fig.axes[0].collections[0]
    assert fig.axes[0].get_xlim() == (0.0, 30.0)  # the x axis still runs to the step it is drawn at
    np.testing.assert_array_equal(mesh.get_coordinates()[0, :, 0], [0, 5, 30])  # step 0 held 5 steps
    np.testing.assert_array_equal(np.ma.filled(mesh.get_array(), np.nan).reshape(2, 2),
                                  [[1e-3, np.nan], [2e-3, np.nan]])  # layer x span: blank after step 5
    # measurements every 10 steps, the last at step 20 of 31: each holds to the next, the last 10 steps
    steps, values = [0, 10, 20], np.array([[1.0], [2.0], [3.0]])
    mesh = layer_step_map(steps, values, "mean T", "T", end_step=31).axes[0].collections[0]
    held = layer_step_maps(steps, {"": values}, "mean T", "T", end_step=31, hold=10).axes[0].collections[0]
    np.testing.assert_array_equal(mesh.get_coordinates()[0, :, 0], [0, 10, 20, 31])  # without hold
    np.testing.assert_array_equal(held.get_coordinates()[0, :, 0], [0, 10, 20, 30, 31])
    np.testing.assert_array_equal(np.ma.filled(held.get_array(), np.nan), [[1.0, 2.0, 3.0, np.nan]])
    plt.close("all")


def test_the_gate_mean_scale_starts_a_decade_below_the_lowest_initial_mean():
    # README, "How to read the images"; new-user pass 3: it started at 0.01 for an initial mean of
    # 0.0202, so gates closing below 0.01 all had the lowest colour
    from highwaylab.callbacks.gate_stats import scale_low

    assert scale_low(np.array([0.0202, 0.03])) == pytest.approx(1e-3)
    assert scale_low(np.array([np.nan, 0.119, 0.5])) == pytest.approx(1e-2)  # a layer without a gate: NaN
    assert scale_low(np.array([])) == pytest.approx(1e-3)


def test_a_log_chart_of_under_two_decades_labels_values_between_the_powers_of_ten():
    # new-user pass 3: grad_norm/by_layer of norms 0.015 .. 0.1 had one labelled tick (10^-1)
    fig = layer_lines({"input": np.linspace(0.015, 0.1, 9)}, "norms", "norm", log=True)
    fig.canvas.draw()
    ax = fig.axes[0]
    labels = [t.get_text() for t in [*ax.get_yticklabels(), *ax.get_yminorticklabels()]
              if t.get_text() and ax.get_ylim()[0] <= t.get_position()[1] <= ax.get_ylim()[1]]
    assert len(labels) >= 3, labels
    wide = layer_lines({"input": np.logspace(-6, 0, 9)}, "norms", "norm", log=True)  # many decades
    assert isinstance(wide.axes[0].yaxis.get_minor_locator(), NullLocator)


def test_gradients_of_exactly_zero_are_drawn_grey_and_marked_not_left_blank():
    # new-user pass 32: model=plain depth=100 model.activation=sigmoid had gradient norms of exactly 0 in
    # layers 1-80: blank white in grad_norm/by_step (like no measurement), missing from grad_norm/by_layer
    steps, values = [0, 10], np.array([[0.0, 0.0, 1e-3], [0.0, 2e-4, 1e-3]])  # (S, L)
    fig = layer_step_map(steps, values, "norms", "norm (log scale)", log=True)
    ax, cbar = fig.axes
    grey = ax.collections[1]  # over the log-scale mesh: 1 where the value is exactly 0, else masked
    np.testing.assert_array_equal(np.ma.filled(grey.get_array(), np.nan).reshape(3, 2),
                                  [[1.0, 1.0], [1.0, np.nan], [np.nan, np.nan]])  # layer x step
    assert cbar.get_ylabel() == "norm (log scale)\n(grey: exactly 0, not on a log scale)"
    lines = layer_lines({"input": np.array([0.0, 0.0, 2e-4, 1e-3])}, "norms", "norm", log=True)
    zeros = lines.axes[0].lines[1]
    assert list(zeros.get_xdata()) == [1, 2] and zeros.get_marker() == "x"
    assert [t.get_text() for t in lines.legends[0].get_texts()] == [
        "input", "input: exactly 0 (not on a log scale)"]
    assert len(layer_step_map(steps, values + 1e-5, "norms", "norm", log=True).axes[0].collections) == 1
    plt.close("all")  # pyplot keeps them: past 20 open figures, its warning fails the no-warning tests


def test_a_line_or_bar_chart_keeps_its_title_and_axis_label_inside_the_figure():
    # new-user pass 32: grad_norm/by_layer's y label was cut at the left edge (ticks such as 3.6x10^-2),
    # and lesion/error_by_layer's two-line title ran off the right edge
    from highwaylab.analysis.plots import layer_bars

    title = ("Training error with one layer lesioned (T = 0), minus the whole net's (9.20%)\non 1000 "
             "training examples (one example: 0.1 points), end of fitting (epoch 0, step 19)")
    for fig in (layer_lines({"input": np.linspace(0.0355, 0.0365, 9)}, "norms", "L2 norm of the gradient",
                            log=True),
                layer_bars(np.array([0.5, 1.0, 0.2]), title, "increase in error (percentage points)")):
        fig.canvas.draw()
        renderer, box = fig.canvas.get_renderer(), fig.bbox
        ax = fig.axes[0]
        for text in (ax.title, ax.yaxis.label):
            extent = text.get_window_extent(renderer)
            assert box.x0 <= extent.x0 and extent.x1 <= box.x1 and extent.y1 <= box.y1, text.get_text()
    # and a legend of five entries, two of them long (zeros marked), below the axes: before, it ran off
    # both sides
    fig = layer_lines({"parameters of layer k": np.r_[np.zeros(8), np.full(4, 0.036)],
                       "input activations of layer k": np.r_[np.zeros(5), np.logspace(-3, -1, 7)]},
                      "norms", "L2 norm of the gradient", log=True,
                      reference={"input, step 0": np.logspace(-3, -1, 12)})
    fig.canvas.draw()
    legend = fig.legends[0].get_window_extent(fig.canvas.get_renderer())
    assert fig.bbox.x0 <= legend.x0 and legend.x1 <= fig.bbox.x1 and fig.bbox.y0 <= legend.y0
    assert legend.y1 < fig.axes[0].xaxis.label.get_window_extent().y0  # below the axis label
    plt.close("all")


def test_layer_history_and_named_layers():
    history = LayerHistory()
    history.add(0, torch.tensor([1.0, 2.0, 3.0]))
    history.add(5, torch.tensor([4.0, 5.0, 6.0]))
    history.add(5, torch.tensor([7.0, 8.0, 9.0]))  # the same step again: replaces
    assert history.steps == [0, 5] and history.array().tolist() == [[1, 2, 3], [7, 8, 9]]
    values = torch.tensor([float("nan"), 0.1, 0.2, float("nan"), 0.4])  # layers 1, 4 have no gate
    assert named_layers(values) == {"first": 2, "middle": 3, "last": 5}
    assert named_scalars("gates/mean", values) == pytest.approx(
        {"gates/mean/first": 0.1, "gates/mean/middle": 0.2, "gates/mean/last": 0.4})
    assert named_layers(torch.arange(1.0, 100.0)) == {"first": 1, "middle": 50, "last": 99}
