-- Server time of PostgreSQL nearby's statements, without the client: the engine's first-page
-- candidate statement (32 whole rows, the planar walk of `places_by_point`, no filter),
-- PostGIS's geography form (21 whole rows, on `postgis_nearby`, which
-- `burgermap-bench nearby-postgis` makes) and the
-- bare planar walk (32 narrow rows), alternating over 1,000 seeded points each in the benchmark's
-- 100 km square; medians in µs (PERFORM: the rows are made, not sent). After a nearby-postgis run:
--   scripts/postgres bash -c '.build/release/burgermap-bench nearby-postgis --queries 100 &&
--     psql -q "$BURGERMAP_TEST_DATABASE_URL" -f scripts/nearby_server_time.sql'
DO $$
DECLARE t0 timestamptz; e float8[] := '{}'; f float8[] := '{}'; g float8[] := '{}'; p geometry; q geography; i int; lat0 float8; lng0 float8;
BEGIN
  PERFORM setseed(0.7);
  FOR i IN 1..3000 LOOP
    lng0 := 126.978 + (random()-0.5)*1.13; lat0 := 37.5665 + (random()-0.5)*0.9;
    p := ST_SetSRID(ST_MakePoint(lng0, lat0), 4326); q := p::geography;
    IF i % 3 = 0 THEN
      t0 := clock_timestamp();
      PERFORM * FROM (SELECT true, id, name, lat, lng, address, phone, category, source, external_id, review_count,
        rating_sum, created_at, city, province, postal_code, country, cover_photo_id, website, names, opening_hours, timezone,
        attributes FROM places ORDER BY ST_SetSRID(ST_MakePoint(lng, lat), 4326) <-> p LIMIT 32) x;
      e := e || extract(epoch from clock_timestamp()-t0)*1e6;
    ELSIF i % 3 = 1 THEN
      t0 := clock_timestamp();
      PERFORM * FROM (SELECT id, name, lat, lng, address, phone, category, source, external_id, review_count, rating_sum, created_at,
        city, province, postal_code, country, cover_photo_id, website, names, opening_hours, timezone, attributes,
        ST_Distance(geog, q, false) FROM postgis_nearby WHERE ST_DWithin(geog, q, 2000, false) ORDER BY geog <-> q LIMIT 21) x;
      g := g || extract(epoch from clock_timestamp()-t0)*1e6;
    ELSE
      t0 := clock_timestamp();
      PERFORM * FROM (SELECT id, lat, lng FROM places ORDER BY ST_SetSRID(ST_MakePoint(lng, lat), 4326) <-> p LIMIT 32) x;
      f := f || extract(epoch from clock_timestamp()-t0)*1e6;
    END IF;
  END LOOP;
  RAISE NOTICE 'engine statement (32 wide rows) median % us', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(e) v);
  RAISE NOTICE 'geography statement (21 wide rows) median % us', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(g) v);
  RAISE NOTICE 'bare geometry walk (32 narrow rows) median % us', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(f) v);
END $$;
