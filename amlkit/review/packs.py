"""What describes a policy pack without reviewing (for `amlkit rules`): amlkit's own pack from its rules'
metadata (amlkit.review.pack.info, without grpc, pulumi-policy or the engine), any other pack over the analyzer
protocol (amlkit.review.engine, imported only then)."""

from __future__ import annotations

from pathlib import Path

from amlkit.errors import UsageError
from amlkit.review.model import PackInfo
from amlkit.review.pack.info import own_pack_info
from amlkit.review.packdir import default_pack_dir

__all__ = ["default_pack_dir", "pack_info"]


def pack_info(policy_pack: Path | None = None, config: Path | None = None) -> PackInfo:
    """The pack's policies with their levels after reconciliation with `config` (for `amlkit rules`):
    from the rules' metadata for amlkit's own pack, over the analyzer protocol for any other."""
    if config is not None and Path(config).is_dir():
        raise UsageError(f"{config}: a directory; `rules` takes one policy pack config file")
    own = default_pack_dir()
    if policy_pack is not None and Path(policy_pack).resolve() != own:
        from amlkit.review.engine import pack_info as described  # grpc and pulumi-policy: only for another pack

        return described(policy_pack, config)
    return own_pack_info(own, config)
