// BurgerMap's web map: clusters and pins from /v1/places/clusters, a place card, search and
// "near me". Read-only. Every text from the service is set with textContent, never as HTML.
(function () {
  "use strict";

  var TEXTS = {
    en: {
      search: "Search places", go: "Search", nearMe: "Near me", noResults: "No places found.",
      reviews: "reviews", more: "More reviews", noReviews: "No reviews yet.", loading: "Loading…",
      locating: "Finding where you are…", noLocation: "Your location is not available.",
      failed: "The map could not load places.", places: "places in view"
    },
    ko: {
      search: "장소 검색", go: "검색", nearMe: "내 주변", noResults: "찾은 장소가 없습니다.",
      reviews: "리뷰", more: "리뷰 더 보기", noReviews: "아직 리뷰가 없습니다.", loading: "불러오는 중…",
      locating: "현재 위치를 찾는 중…", noLocation: "현재 위치를 알 수 없습니다.",
      failed: "장소를 불러오지 못했습니다.", places: "곳이 지도에 있습니다"
    },
    ja: {
      search: "場所を検索", go: "検索", nearMe: "現在地周辺", noResults: "場所が見つかりません。",
      reviews: "件のレビュー", more: "レビューをもっと見る", noReviews: "まだレビューがありません。",
      loading: "読み込み中…", locating: "現在地を取得しています…", noLocation: "現在地を取得できません。",
      failed: "場所を読み込めませんでした。", places: "件が表示範囲にあります"
    }
  };
  var language = (navigator.languages || [navigator.language || "en"]).map(function (tag) {
    return String(tag).slice(0, 2).toLowerCase();
  }).filter(function (code) { return TEXTS[code]; })[0] || "en";
  var text = TEXTS[language];
  document.documentElement.lang = language;

  var body = document.body;
  var status = document.getElementById("status");
  var results = document.getElementById("results");
  var card = document.getElementById("card");
  var query = document.getElementById("q");
  query.placeholder = text.search;
  query.setAttribute("aria-label", text.search);
  document.getElementById("go").textContent = text.go;
  document.getElementById("near-me").textContent = text.nearMe;

  function element(tag, className, content) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (content !== undefined && content !== null) node.textContent = String(content);
    return node;
  }

  function getJSON(path, signal) {
    return fetch(path, { headers: { Accept: "application/json" }, signal: signal }).then(function (response) {
      return response.json().then(function (json) {
        if (!response.ok) throw new Error((json && (json.detail || json.title)) || text.failed);
        return json;
      });
    });
  }

  var map = L.map("map", { worldCopyJump: true, minZoom: 0, maxZoom: 20 });
  var tileURL = body.getAttribute("data-tile-url");
  if (tileURL) {
    L.tileLayer(tileURL, { maxZoom: 19, attribution: body.getAttribute("data-tile-attribution") || "" }).addTo(map);
  }
  // What the places' licences require (an OpenStreetMap extract's "© OpenStreetMap contributors"),
  // unless the tiles' own attribution says it already.
  var dataAttribution = body.getAttribute("data-data-attribution") || "";
  var tileAttribution = tileURL ? body.getAttribute("data-tile-attribution") || "" : "";
  dataAttribution.split("\n").forEach(function (line) {
    if (!line) return;
    var words = line.replace(/^©\s*/, "").split(" ")[0];
    if (tileAttribution.indexOf(words) >= 0) return;
    var span = document.createElement("span");
    span.textContent = line;
    map.attributionControl.addAttribution(span.outerHTML);
  });
  var markers = L.layerGroup().addTo(map);
  // For the browser check (scripts/web-map-check) and the curious: the map and the box it asks for.
  window.burgerMap = { map: map, box: function () { return visibleBox(); } };

  // The view in the URL: #zoom/lat/lng.
  function viewFromHash() {
    var parts = location.hash.replace(/^#/, "").split("/").map(Number);
    if (parts.length !== 3 || parts.some(function (n) { return !isFinite(n); })) return null;
    return { zoom: Math.max(0, Math.min(20, Math.round(parts[0]))), lat: parts[1], lng: parts[2] };
  }
  function writeHash() {
    var centre = map.getCenter().wrap();
    var hash = "#" + map.getZoom() + "/" + centre.lat.toFixed(5) + "/" + centre.lng.toFixed(5);
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }

  // The visible box as the service reads it: longitudes wrapped into -180…180 (west > east
  // across the antimeridian), the whole world once the view is wider than it.
  function visibleBox() {
    var bounds = map.getBounds();
    var south = Math.max(-90, bounds.getSouth()), north = Math.min(90, bounds.getNorth());
    var west = bounds.getWest(), east = bounds.getEast();
    if (east - west >= 360) { west = -180; east = 180; } else {
      west = ((west + 180) % 360 + 360) % 360 - 180;
      east = ((east + 180) % 360 + 360) % 360 - 180;
    }
    return [west, south, east, north].map(function (n) { return n.toFixed(6); }).join(",");
  }

  function clusterIcon(count) {
    var size = count < 10 ? 30 : count < 100 ? 36 : count < 1000 ? 44 : 52;
    return L.divIcon({ className: "cluster-icon", html: "", iconSize: [size, size] });
  }

  var pending = null;
  var loadedOnce = false;
  var started = performance.now();
  function loadClusters() {
    if (pending) pending.abort();
    pending = new AbortController();
    var zoom = map.getZoom();
    var box = visibleBox();
    var path = "/v1/places/clusters?" + new URLSearchParams({ bbox: box, zoom: String(zoom) });
    getJSON(path, pending.signal).then(function (view) {
      markers.clearLayers();
      view.items.forEach(function (item) {
        if (item.type === "cluster") {
          var marker = L.marker([item.lat, item.lng], { icon: clusterIcon(item.count), keyboard: true });
          marker.on("add", function () {
            var node = marker.getElement();
            node.textContent = String(item.count);
            node.setAttribute("data-count", String(item.count));
            node.setAttribute("title", String(item.count));
          });
          marker.on("click", function () {
            var b = item.bounds;
            if (item.expansion_zoom === null) {
              map.setView([item.lat, item.lng], 20);
            } else if (b[0] === b[2] && b[1] === b[3]) {
              map.setView([item.lat, item.lng], item.expansion_zoom);
            } else {
              map.fitBounds([[b[1], b[0]], [b[3], b[2]]], { maxZoom: item.expansion_zoom });
            }
          });
          markers.addLayer(marker);
        } else {
          var place = item.place;
          var pin = L.marker([place.lat, place.lng], {
            icon: L.divIcon({ className: "pin-icon" + (place.review_count > 0 ? " reviewed" : ""), iconSize: [16, 16] }),
            title: place.name, keyboard: true
          });
          pin.on("add", function () { pin.getElement().setAttribute("data-place-id", String(place.id)); });
          pin.on("click", function () { openCard(place); });
          markers.addLayer(pin);
        }
      });
      body.setAttribute("data-view-count", String(view.count));
      body.setAttribute("data-view-zoom", String(view.zoom));
      body.setAttribute("data-view-box", box);
      if (!loadedOnce) {
        loadedOnce = true;
        body.setAttribute("data-first-clusters-ms", String(Math.round(performance.now() - started)));
      }
      if (!results.firstChild && card.hidden) status.textContent = view.count + " " + text.places;
      body.setAttribute("data-loaded", "true");
    }).catch(function (error) {
      if (error.name !== "AbortError") status.textContent = error.message || text.failed;
    });
  }

  map.on("moveend", function () { writeHash(); loadClusters(); });
  window.addEventListener("hashchange", function () {
    var view = viewFromHash();
    if (view) map.setView([view.lat, view.lng], view.zoom);
  });

  // The place card: name, address, rating, cover photo, the newest reviews and "more".
  function openCard(place) {
    results.textContent = "";
    card.textContent = "";
    card.hidden = false;
    card.setAttribute("data-place-id", String(place.id));
    status.textContent = "";
    if (place.cover_photo_url) {
      var cover = element("img", "cover");
      cover.src = place.cover_photo_url;
      cover.alt = "";
      card.appendChild(cover);
    }
    card.appendChild(element("h2", "name", place.name));
    if (place.address) card.appendChild(element("span", "address", place.address));
    var rating = place.rating_avg === null ? "–" : "★ " + place.rating_avg.toFixed(1);
    card.appendChild(element("p", "rating", rating + " · " + place.review_count + " " + text.reviews));
    var list = element("div", "reviews");
    card.appendChild(list);
    loadReviews(place.id, null, list);
  }

  function loadReviews(placeID, cursor, list) {
    var parameters = { limit: "3" };
    if (cursor) parameters.cursor = cursor;
    getJSON("/v1/places/" + placeID + "/reviews?" + new URLSearchParams(parameters)).then(function (page) {
      if (!page.items.length && !cursor) list.appendChild(element("p", "empty", text.noReviews));
      page.items.forEach(function (review) {
        var node = element("div", "review");
        node.appendChild(element("span", "who", review.author.nickname + " · " + "★".repeat(review.rating)));
        node.appendChild(element("p", "text", review.text));
        review.photos.forEach(function (photo) {
          var image = element("img");
          image.src = photo.thumbnail_url;
          image.alt = "";
          image.loading = "lazy";
          node.appendChild(image);
        });
        list.appendChild(node);
      });
      if (page.next_cursor) {
        var more = element("button", "more", text.more);
        more.type = "button";
        more.addEventListener("click", function () {
          more.remove();
          loadReviews(placeID, page.next_cursor, list);
        });
        list.appendChild(more);
      }
    }).catch(function (error) { list.appendChild(element("p", "error", error.message)); });
  }

  function showList(places) {
    card.hidden = true;
    results.textContent = "";
    status.textContent = places.length ? "" : text.noResults;
    places.forEach(function (place) {
      var row = element("li", "result");
      row.setAttribute("data-place-id", String(place.id));
      row.appendChild(element("span", "name", place.name));
      if (place.address) row.appendChild(element("span", "address", place.address));
      row.addEventListener("click", function () {
        map.setView([place.lat, place.lng], Math.max(map.getZoom(), 17));
        openCard(place);
      });
      results.appendChild(row);
    });
  }

  document.getElementById("search").addEventListener("submit", function (event) {
    event.preventDefault();
    var centre = map.getCenter().wrap();
    status.textContent = text.loading;
    var parameters = { q: query.value, lat: centre.lat.toFixed(6), lng: centre.lng.toFixed(6), limit: "20" };
    getJSON("/v1/places/search?" + new URLSearchParams(parameters)).then(function (page) {
      showList(page.items);
    }).catch(function (error) {
      results.textContent = "";
      status.textContent = error.message;
    });
  });

  document.getElementById("near-me").addEventListener("click", function () {
    if (!navigator.geolocation) { status.textContent = text.noLocation; return; }
    status.textContent = text.locating;
    navigator.geolocation.getCurrentPosition(function (position) {
      var lat = position.coords.latitude, lng = position.coords.longitude;
      map.setView([lat, lng], 15);
      var parameters = { lat: lat.toFixed(6), lng: lng.toFixed(6), radius_m: "5000", limit: "20" };
      getJSON("/v1/places/nearby?" + new URLSearchParams(parameters)).then(function (page) {
        showList(page.items);
      }).catch(function (error) { status.textContent = error.message; });
    }, function () { status.textContent = text.noLocation; }, { timeout: 10000 });
  });

  // Start from the URL's view, else fit the places there are.
  var initial = viewFromHash();
  if (initial) {
    map.setView([initial.lat, initial.lng], initial.zoom);
  } else {
    getJSON("/v1/places/clusters?bbox=-180,-90,180,90&zoom=0").then(function (world) {
      var south = 90, west = 180, north = -90, east = -180;
      world.items.forEach(function (item) {
        var b = item.type === "cluster" ? item.bounds : [item.place.lng, item.place.lat, item.place.lng, item.place.lat];
        west = Math.min(west, b[0]); south = Math.min(south, b[1]);
        east = Math.max(east, b[2]); north = Math.max(north, b[3]);
      });
      if (world.count > 0) {
        map.fitBounds([[south, west], [north, east]], { maxZoom: 15, padding: [20, 20] });
      } else {
        map.setView([20, 0], 2);
      }
    }).catch(function () { map.setView([20, 0], 2); });
  }
})();
