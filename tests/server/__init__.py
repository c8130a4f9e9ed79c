"""API tests (httpx against the running app) and viewer tests (headless Chromium)."""
