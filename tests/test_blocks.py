"""Blocks and backbones against the paper: identities, the fused-layer oracle, parameter counts."""

import math

import pytest
import torch
from torch import nn

from highwaylab.errors import ConfigError
from highwaylab.models import (
    BLOCKS,
    FCBackbone,
    HighwayBlock,
    NaiveHighwayBlock,
    auto_gate_bias,
    get_activation,
    matched_width,
)


@pytest.mark.parametrize("block", sorted(BLOCKS))
def test_every_block_shape_finite_and_gradients(block):
    torch.manual_seed(0)
    kwargs = {"zero_init": False} if block == "residual" else {}
    net = FCBackbone(block, depth=5, width=12, input_shape=20, num_classes=3, **kwargs)
    x = torch.randn(7, 20)
    logits = net(x)
    assert logits.shape == (7, 3)
    assert torch.isfinite(logits).all()
    nn.functional.cross_entropy(logits, torch.tensor([0, 1, 2, 0, 1, 2, 0])).backward()
    for name, p in net.named_parameters():
        assert p.grad is not None, name
        assert p.grad.abs().sum() > 0, f"{name} got an all-zero gradient"


@pytest.mark.parametrize("block", sorted(BLOCKS))
def test_forward_internals_matches_forward(block):
    torch.manual_seed(0)
    net = FCBackbone(block, depth=6, width=8, input_shape=10, num_classes=4)
    x = torch.randn(5, 10)
    logits, internals = net.forward_internals(x)
    torch.testing.assert_close(logits, net(x))
    assert len(internals.states) == 6  # stem output + 5 layers
    assert all(s.shape == (5, 8) for s in internals.states)
    assert sum(g is not None for g in internals.gates) == (5 if BLOCKS[block].has_gate else 0)
    names = [name for name, _ in net.ordered_layers()]
    assert names == ["stem", "layer_001", "layer_002", "layer_003", "layer_004", "layer_005", "head"]


def test_highway_layer_with_gate_bias_minus_20_is_the_identity():
    torch.manual_seed(0)
    layer = HighwayBlock(50, nn.ReLU, gate_bias=-20.0)
    x = torch.randn(64, 50)
    # T = sigmoid(W_T x - 20) <= ~1e-8, so y = x + T (H - x) differs from x by < 1e-6
    torch.testing.assert_close(layer(x), x, atol=1e-6, rtol=0)


@pytest.mark.parametrize("act", ["relu", "tanh", "sigmoid"])
def test_fused_highway_layer_equals_two_linear_oracle(act):
    torch.manual_seed(1)
    fused = HighwayBlock(32, get_activation(act), gate_bias=-1.5)
    with torch.no_grad():  # move away from the initial bias so the gate matters
        fused.proj.bias.normal_()
    oracle = NaiveHighwayBlock.from_fused(fused)
    x = torch.randn(16, 32, requires_grad=True)
    y_fused, t_fused = fused.forward_internals(x)
    y_ref, t_ref = oracle.forward_internals(x)
    torch.testing.assert_close(y_fused, y_ref, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(t_fused, t_ref, atol=1e-6, rtol=1e-5)
    g_fused, = torch.autograd.grad(y_fused.square().sum(), x)
    g_ref, = torch.autograd.grad(y_ref.square().sum(), x)
    torch.testing.assert_close(g_fused, g_ref, atol=1e-5, rtol=1e-5)


def test_parameter_counts_of_the_papers_mnist_layers():
    # [TVDN 3.1]: highway layers 50 blocks wide and plain layers 71 units wide, ~5,000 each
    highway = FCBackbone("highway", depth=2, width=50, input_shape=784, num_classes=10)
    plain = FCBackbone("plain", depth=2, width=71, input_shape=784, num_classes=10)
    assert sum(p.numel() for p in highway.layers.parameters()) == 2 * (50 * 50 + 50) == 5100
    assert sum(p.numel() for p in plain.layers.parameters()) == 71 * 71 + 71 == 5112
    assert matched_width("plain", "highway", 50) == 71
    # the config option picks 71 by itself; the stem and head grow with it
    matched = FCBackbone("plain", depth=10, width=50, input_shape=784, num_classes=10,
                         match_params="highway")
    assert matched.width == 71
    assert sum(p.numel() for p in matched.parameters()) == (784 * 71 + 71) + 9 * 5112 + (71 * 10 + 10)


def test_gate_bias_is_set_and_exposed():
    net = FCBackbone("highway", depth=4, width=6, input_shape=3, num_classes=2, gate_bias=-3)
    for layer in net.layers:
        assert torch.equal(layer.transform_bias, torch.full((6,), -3.0))


@pytest.mark.parametrize("depth, bias", [(10, -math.log(9)), (100, -math.log(99)),
                                         pytest.param(1000, -math.log(999), marks=pytest.mark.slow)])
def test_auto_gate_bias_keeps_the_carry_path_open_at_any_depth(depth, bias):
    torch.manual_seed(0)
    assert auto_gate_bias(depth - 1) == pytest.approx(bias)
    net = FCBackbone("highway", depth=depth, width=50, input_shape=784, num_classes=10)
    assert net.gate_bias == pytest.approx(bias)
    with torch.no_grad():
        _, internals = net.forward_internals(torch.randn(64, 784))
    carry = torch.stack([1 - t for t in internals.gates]).prod(0)  # prod_l (1 - T_l), (N, D)
    # ~1/e by design; the input-dependent part of T moves it a little
    assert 0.15 < carry.mean().item() < 0.6
    # a fixed -2 closes it: 0.88^99 ~ 3e-6 at depth 100
    if depth == 100:
        fixed = FCBackbone("highway", depth=depth, width=50, input_shape=784, num_classes=10,
                           gate_bias=-2)
        with torch.no_grad():
            _, internals = fixed.forward_internals(torch.randn(64, 784))
        assert torch.stack([1 - t for t in internals.gates]).prod(0).mean().item() < 1e-4


def _first_layer_grad_norm(net: FCBackbone) -> float:
    torch.manual_seed(0)
    x, y = torch.randn(128, 784), torch.randint(0, 10, (128,))
    nn.functional.cross_entropy(net(x), y).backward()
    grads = [p.grad.flatten() for p in net.layers[0].parameters()]
    return torch.cat(grads).norm().item()  # L2 norm over all parameters of layer 1


@pytest.mark.slow
def test_deep_sigmoid_plain_net_gradient_vanishes_but_highway_does_not():
    torch.manual_seed(0)
    plain = FCBackbone("plain", depth=100, width=71, input_shape=784, num_classes=10,
                       activation="sigmoid")
    torch.manual_seed(0)
    highway = FCBackbone("highway", depth=100, width=50, input_shape=784, num_classes=10,
                         activation="sigmoid")
    g_plain, g_highway = _first_layer_grad_norm(plain), _first_layer_grad_norm(highway)
    assert g_highway > 1e-4
    assert g_plain < 1e-6 * g_highway  # many orders of magnitude apart


@pytest.mark.parametrize("kwargs, key", [
    ({"depth": 0}, "depth=0"), ({"width": -3}, "width=-3"), ({"depth": 2.5}, "depth=2.5"),
    ({"activation": "swishy"}, "model.activation='swishy'"),
    ({"gate_bias": "low"}, "model.gate_bias='low'"),
    ({"block": "dense"}, "model.block='dense'"),
    ({"norm": "batchnorm"}, "norm"), ({"init": "orthogonal"}, "model.init='orthogonal'"),
])
def test_bad_options_name_the_key(kwargs, key):
    args = {"block": "highway", "depth": 3, "width": 4, "input_shape": 5, "num_classes": 2} | kwargs
    with pytest.raises(ConfigError, match=key.replace(".", r"\.").replace("(", r"\(")):
        FCBackbone(**args)


def test_any_torch_activation_by_name():
    assert get_activation("relu") is nn.ReLU
    assert get_activation("GELU") is nn.GELU
    assert get_activation("leaky_relu") is nn.LeakyReLU
    assert get_activation("nn.Tanh") is get_activation("torch.nn.Tanh") is nn.Tanh  # pass 45, row 1
    net = FCBackbone("highway", depth=3, width=4, input_shape=5, num_classes=2, activation="silu")
    assert isinstance(net.layers[0].act, nn.SiLU)


@pytest.mark.parametrize("init, variance", [("glorot", 1 / 64), ("he", 2 / 64)])
def test_weight_inits_treat_each_half_of_the_fused_layer_as_its_own_matrix(init, variance):
    torch.manual_seed(0)
    net = FCBackbone("highway", depth=40, width=64, input_shape=30, num_classes=3, init=init,
                     gate_bias=-3)
    w_h = torch.cat([layer.proj.weight[:64] for layer in net.layers])  # W_H of every layer
    w_t = torch.cat([layer.proj.weight[64:] for layer in net.layers])  # W_T
    # Glorot: 2 / (fan_in + fan_out) = 1/64 for a 64 x 64 matrix; He: 2 / fan_in
    assert w_h.var().item() == pytest.approx(variance, rel=0.03)
    assert w_t.var().item() == pytest.approx(variance, rel=0.03)
    assert all(torch.equal(layer.transform_bias, torch.full((64,), -3.0)) for layer in net.layers)
    assert all(torch.equal(layer.proj.bias[:64], torch.zeros(64)) for layer in net.layers)
    residual = FCBackbone("residual", depth=3, width=8, input_shape=5, num_classes=2, init=init)
    assert all(layer.fc.weight.abs().sum() == 0 for layer in residual.layers)  # zero-init kept
