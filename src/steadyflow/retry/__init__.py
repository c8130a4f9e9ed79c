"""Retries at the model-call boundary: configuration, policy and the retry loop."""

from .config import RetryConfig

__all__ = ["RetryConfig"]
