// The system zlib (Debian's zlib1g-dev), for inflating the blobs of OSM PBF files.
#include <zlib.h>
