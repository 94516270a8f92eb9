"""The link model a virtual cluster is built with: added one-way delay, jitter, reordering,
rate and loss. Parsed from the command line (`--delay 50us --rate 10gbit`) or from one
compact spec (`delay=50us,jitter=10us,rate=10gbit`, what `reproduce --link` takes)."""

import re
from dataclasses import asdict, dataclass

_TIME = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
_RATE = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12}


KEYS = "delay, jitter, reorder, rate, loss, superframes"


class SpecError(ValueError):
    """A link option that cannot be parsed; its text is the one-line message."""


def parse_us(text, what):
    """'50us', '1.5ms', '0' -> microseconds (float). A bare number is microseconds."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ns|us|ms|s)?\s*", str(text))
    if not m:
        raise SpecError("%s: '%s' is not a duration (e.g. 50us, 1ms)" % (what, text))
    return float(m.group(1)) * _TIME[m.group(2) or "us"]


def parse_rate(text):
    """'10gbit', '100mbit', '0' -> bits per second (int); 0 means unlimited."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]?bit)?\s*", str(text).lower())
    if not m or (m.group(2) is None and float(m.group(1)) != 0):
        raise SpecError("rate: '%s' is not a rate (e.g. 10gbit, 100mbit)" % text)
    return int(float(m.group(1)) * _RATE[m.group(2) or "bit"])


def parse_pct(text, what):
    try:
        v = float(str(text).rstrip("%"))
    except ValueError:
        raise SpecError("%s: '%s' is not a percentage" % (what, text)) from None
    if not 0 <= v <= 100:
        raise SpecError("%s: %s%% is outside 0..100" % (what, text))
    return v


@dataclass
class LinkSpec:
    delay_us: float = 0.0
    jitter_us: float = 0.0
    reorder_pct: float = 0.0
    rate_bps: int = 0  # 0: unlimited
    loss_pct: float = 0.0
    # False: the emulator goes frame by frame even where superframes would do (what
    # `calibrate` compares against); not part of the link model, so not in to_json.
    superframes: bool = True

    @property
    def needs_emulator(self):
        """Delay, jitter and reordering need the user-space emulator (the kernel has no
        netem); rate (tbf) and loss (nftables) work on the plain bridge."""
        return self.delay_us > 0 or self.jitter_us > 0 or self.reorder_pct > 0

    @property
    def whole_superframes(self):
        """Whether the emulator may carry TCP's segmentation-offload superframes (up to 64
        KiB) whole (linkemu --gso, about 3x its per-frame throughput). Delay and rate act on
        a superframe as on its segments sent back to back (rate counts the wire's bytes);
        loss, jitter and reordering would act on 40-odd segments at once, so those links go
        frame by frame."""
        return self.superframes and self.loss_pct == 0 and self.jitter_us == 0 and self.reorder_pct == 0

    def validate(self):
        if self.jitter_us > 0 and self.delay_us <= 0:
            raise SpecError("jitter needs a delay (--delay) to vary around")
        return self

    def describe(self):
        """A short human label, e.g. 'delay 50us jitter 10us rate 10gbit' or 'bridge'."""
        parts = []
        if self.delay_us:
            parts.append("delay %gus" % self.delay_us)
        if self.jitter_us:
            parts.append("jitter %gus" % self.jitter_us)
        if self.reorder_pct:
            parts.append("reorder %g%%" % self.reorder_pct)
        if self.rate_bps:
            parts.append("rate %s" % format_rate(self.rate_bps))
        if self.loss_pct:
            parts.append("loss %g%%" % self.loss_pct)
        return " ".join(parts) or "full speed"

    def to_json(self):
        out = asdict(self)
        del out["superframes"]  # how the emulator carries frames: summary() records it
        return out

    def summary(self, via_emulator=False):
        """What a cluster's state, the manifest and every sidecar record of the link."""
        emulated = self.needs_emulator or via_emulator
        out = dict(self.to_json(), description=self.describe(),
                   mode="emulator" if emulated else "bridge")
        if emulated:
            out["emulator_superframes"] = self.whole_superframes
        return out


def format_rate(bps):
    for unit, scale in (("tbit", 1e12), ("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3)):
        if bps >= scale and bps % scale == 0:
            return "%d%s" % (bps // scale, unit)
    return "%dbit" % bps


def parse(spec):
    """'delay=50us,jitter=10us,reorder=1,rate=10gbit,loss=0.5' (any subset; '' or 'none':
    the full-speed bridge) -> LinkSpec. superframes=off makes the emulator go frame by frame
    on a link where it would carry superframes whole."""
    link = LinkSpec()
    if not spec or spec.strip() in ("none", "bridge"):
        return link
    for item in spec.split(","):
        if "=" not in item:
            raise SpecError("link spec item '%s' is not KEY=VALUE (keys: %s)" % (item, KEYS))
        key, value = (s.strip() for s in item.split("=", 1))
        if key == "delay":
            link.delay_us = parse_us(value, "delay")
        elif key == "jitter":
            link.jitter_us = parse_us(value, "jitter")
        elif key == "reorder":
            link.reorder_pct = parse_pct(value, "reorder")
        elif key == "rate":
            link.rate_bps = parse_rate(value)
        elif key == "loss":
            link.loss_pct = parse_pct(value, "loss")
        elif key == "superframes":
            if value not in ("on", "off"):
                raise SpecError("superframes: '%s' is not on or off" % value)
            link.superframes = value == "on"
        else:
            raise SpecError("unknown link key '%s' (keys: %s)" % (key, KEYS))
    return link.validate()
