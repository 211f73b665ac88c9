"""Growing a trained grid ResNet into a wider and deeper one that plays the same (Net2Net).

Why: a long run whose small network has stopped improving (9×9 Stereo Go's 32×4 net, flat
since iteration 300) goes on with more capacity without starting again from random weights.
The grown network computes the same function as the source (Chen, Goodfellow and Shlens,
"Net2Net", ICLR 2016), so self-play resumes at the source's strength and the learner fills
the new capacity from there.

- **Wider** (``channels``): every new channel of the residual stream copies an old one (its
  convolution's output weights and its batch-norm statistics), and every layer that reads the
  stream divides the copied channel's input weights among its copies, so sums stay the same.
  Each block's inner channels (conv1 -> bn1 -> conv2) are widened the same way with their own
  choice of copies. Small ``noise`` on the readers' weights breaks the copies' symmetry (with
  exact copies their gradients would be equal forever).
- **Deeper** (``blocks``): new residual blocks whose last batch norm has zero scale and shift
  add zero to the stream, and the stream is non-negative (it leaves a ReLU), so
  ``relu(x + 0) = x``: each new block is the identity until training moves its scale. They
  are spread evenly between the old blocks.

Only :class:`agents.networks.GridResNet` (plain square boards) grows; other kinds raise
:class:`ConfigError`.
"""

from __future__ import annotations

import torch
from torch import nn

from agents.config import NetworkConfig
from agents.networks import GridResNet, ResidualBlock, build_network
from envs.core import ConfigError, GameSpec


def grow_resnet(
    source: nn.Module,
    spec: GameSpec,
    target: NetworkConfig,
    *,
    seed: int = 0,
    noise: float = 0.0,
) -> nn.Module:
    """A ``target``-shaped GridResNet that computes what ``source`` does (up to ``noise``,
    the relative size of the symmetry-breaking perturbation; 0: exactly, up to float
    rounding). ``target`` may only add channels and blocks; its other fields must match.
    The same ``seed`` grows the same weights."""
    if not isinstance(source, GridResNet):
        raise ConfigError(f"only the grid ResNet grows, not {type(source).__name__}")
    old_ch = source.stem[0].out_channels
    old_blocks = len(source.trunk)
    if target.kind != "resnet":
        raise ConfigError(f"a grid ResNet grows into a resnet, not {target.kind!r}")
    if target.channels < old_ch or target.blocks < old_blocks:
        raise ConfigError(
            f"growing only adds: {old_ch}x{old_blocks} cannot become "
            f"{target.channels}x{target.blocks}"
        )
    if target.aux_heads != (source.aux is not None):
        raise ConfigError("the grown network must keep the source's aux_heads setting")
    if source.value_fc[0].out_features != target.value_hidden:
        raise ConfigError("the grown network must keep the source's value_hidden")
    gen = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng():  # the new blocks' initial weights come from the seed too
        torch.manual_seed(seed)
        grown = build_network(spec, target)
    assert isinstance(grown, GridResNet)
    stream = _copies(old_ch, target.channels, gen)
    with torch.no_grad():
        grown.stem[0].weight.copy_(source.stem[0].weight[stream])
        _copy_bn(source.stem[1], grown.stem[1], stream)
        olds, placed = iter(source.trunk), _placed_blocks(len(grown.trunk), old_blocks)
        for index, block in enumerate(grown.trunk):
            if index in placed:
                _grow_block(next(olds), block, stream, gen, noise)
            else:
                _make_identity(block)
        _copy_reader(source.policy_conv[0], grown.policy_conv[0], stream, gen, noise)
        _copy_all(source.policy_conv[1], grown.policy_conv[1])
        _copy_all(source.policy_fc, grown.policy_fc)
        _copy_reader(source.value_conv[0], grown.value_conv[0], stream, gen, noise)
        _copy_all(source.value_conv[1], grown.value_conv[1])
        _copy_all(source.value_fc, grown.value_fc)
        if source.aux is not None and grown.aux is not None:
            _copy_reader(source.aux.ownership, grown.aux.ownership, stream, gen, noise)
            grown.aux.ownership.bias.copy_(source.aux.ownership.bias)
            pooled = torch.cat([stream, stream + old_ch])  # [mean | max] of each channel
            _copy_reader(source.aux.score[0], grown.aux.score[0], pooled, gen, noise)
            grown.aux.score[0].bias.copy_(source.aux.score[0].bias)
            _copy_all(source.aux.score[2], grown.aux.score[2])
    return grown


def _copies(old: int, new: int, gen: torch.Generator) -> torch.Tensor:
    """For each of ``new`` channels, the old channel it copies: the old ones themselves, then
    random picks."""
    extra = torch.randint(0, old, (new - old,), generator=gen)
    return torch.cat([torch.arange(old), extra])


def _placed_blocks(blocks: int, old_blocks: int) -> set[int]:
    """Which of the grown trunk's ``blocks`` take the old blocks' weights (in order); the
    others are the new identity blocks, spread evenly between them."""
    return {(i * blocks) // old_blocks for i in range(old_blocks)}


def _grow_block(
    old: ResidualBlock, new: ResidualBlock, stream: torch.Tensor, gen: torch.Generator,
    noise: float,
) -> None:
    inner = _copies(old.conv1.out_channels, new.conv1.out_channels, gen)
    # conv1 reads the stream and writes the inner channels.
    w = _divided(old.conv1.weight, stream, dim=1)[inner]
    new.conv1.weight.copy_(_perturbed(w, stream, gen, noise, dim=1))
    _copy_bn(old.bn1, new.bn1, inner)
    # conv2 reads the inner channels and writes the stream.
    w = _divided(old.conv2.weight, inner, dim=1)[stream]
    new.conv2.weight.copy_(_perturbed(w, inner, gen, noise, dim=1))
    _copy_bn(old.bn2, new.bn2, stream)


def _make_identity(block: ResidualBlock) -> None:
    """A block that adds zero to the stream: its last batch norm scales and shifts to 0."""
    block.bn2.weight.zero_()
    block.bn2.bias.zero_()


def _divided(weight: torch.Tensor, copies: torch.Tensor, dim: int) -> torch.Tensor:
    """``weight`` with input dimension ``dim`` widened by ``copies``, each copy's weights
    divided by how many copies its channel has, so the layer's sums stay the same."""
    counts = torch.bincount(copies).to(weight.dtype)
    picked = weight.index_select(dim, copies)
    shape = [1] * weight.dim()
    shape[dim] = len(copies)
    return picked / counts[copies].reshape(shape)


def _perturbed(
    weight: torch.Tensor, copies: torch.Tensor, gen: torch.Generator, noise: float, dim: int
) -> torch.Tensor:
    """Noise of relative size ``noise`` on the input weights of the channels that have
    copies (the others stay exact)."""
    if noise <= 0:
        return weight
    counts = torch.bincount(copies)
    shared = (counts[copies] > 1).to(weight.dtype)
    shape = [1] * weight.dim()
    shape[dim] = len(copies)
    scale = noise * float(weight.abs().mean())
    jitter = torch.randn(weight.shape, generator=gen, dtype=weight.dtype) * scale
    return weight + jitter * shared.reshape(shape)


def _copy_bn(old: nn.BatchNorm2d, new: nn.BatchNorm2d, copies: torch.Tensor) -> None:
    for name in ("weight", "bias", "running_mean", "running_var"):
        getattr(new, name).copy_(getattr(old, name)[copies])
    new.num_batches_tracked.copy_(old.num_batches_tracked)


def _copy_reader(
    old: nn.Module, new: nn.Module, copies: torch.Tensor, gen: torch.Generator, noise: float
) -> None:
    """A layer reading the widened channels (input dimension 1 of a conv or linear)."""
    w = _divided(old.weight, copies, dim=1)
    new.weight.copy_(_perturbed(w, copies, gen, noise, dim=1))


def _copy_all(old: nn.Module, new: nn.Module) -> None:
    """A layer the widening does not touch."""
    new.load_state_dict(old.state_dict())
