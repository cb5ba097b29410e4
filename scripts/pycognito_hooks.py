"""Hooks that run pycognito's SRP code offline and at a chosen instant (shared by the generator,
the interop peer and the benchmark). Stdlib only besides pycognito itself."""

import contextlib
import datetime as _datetime
import types

from pycognito import aws_srp


class NoNetworkClient:
    """Stands in for the boto3 cognito-idp client; any use is a bug in the calling script."""

    def __getattr__(self, name):
        raise RuntimeError(f"pycognito tried to use the network client: {name}")


@contextlib.contextmanager
def frozen_utc(when):
    """Make pycognito.aws_srp's datetime.datetime.utcnow() (and now()) return `when` (a naive UTC datetime)."""

    class FrozenDateTime(_datetime.datetime):
        @classmethod
        def utcnow(cls):
            return when

        @classmethod
        def now(cls, tz=None):
            return when if tz is None else when.replace(tzinfo=_datetime.timezone.utc).astimezone(tz)

    fake = types.SimpleNamespace(
        datetime=FrozenDateTime,
        timezone=_datetime.timezone,
        timedelta=_datetime.timedelta,
        date=_datetime.date,
    )
    saved = aws_srp.datetime
    aws_srp.datetime = fake
    try:
        yield
    finally:
        aws_srp.datetime = saved
