"""TLS for the servers the tests start: a throwaway self-signed certificate."""

from __future__ import annotations

import subprocess
from pathlib import Path

from nimbase.settings import TlsFiles


def self_signed_certificate(folder: Path) -> TlsFiles:
    """A self-signed certificate for 127.0.0.1 and localhost, and its key, made by openssl in `folder`."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    names = ["-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]
    files = ["-keyout", str(key), "-out", str(cert), "-days", "2"]
    subprocess.run(["openssl", "req", "-x509", *curve, *names, *files], check=True, capture_output=True)
    return TlsFiles(cert=cert, key=key)
