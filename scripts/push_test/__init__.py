"""scripts/push-test: the browser's side of Web Push (RFC 8030, 8291, 8292), written apart from
the service's Swift code, and the end-to-end run against `burgermap serve` on both engines."""
