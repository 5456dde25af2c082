-- wrk script: POST /v1/auth/login with the benchmark account's correct password (bcrypt runs
-- on every request). wrk reports any answer that is not 2xx as "Non-2xx or 3xx responses".
wrk.method = "POST"
wrk.path = "/v1/auth/login"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"email": "bench@example.com", "password": "benchmark password"}'
