// A side-by-side peer for BenchmarkPointwise: decodes a LAZ file with
// LASzip's DLL API (or decodes it into memory and encodes it again) and
// prints one JSON line: points, wall and CPU seconds, and a digest of the
// decoded fields. LASzip is not packaged where pctk is developed; build.sh
// compiles this against LASzip's source.
// Usage: bench decode in.laz | bench encode in.laz out.laz
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <chrono>
#include <vector>
#include "laszip_api.h"
#include "laszip.hpp"
static double cpu() { return (double)clock() / CLOCKS_PER_SEC; }
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: bench decode|encode in.laz [out.laz]\n"); return 2; }
  laszip_POINTER r; laszip_create(&r);
  laszip_BOOL compressed;
  double w0 = now(), c0 = cpu();
  if (laszip_open_reader(r, argv[2], &compressed)) { char* e; laszip_get_error(r, &e); fprintf(stderr, "open: %s\n", e); return 1; }
  laszip_header* h; laszip_get_header_pointer(r, &h);
  laszip_I64 n = h->number_of_point_records ? h->number_of_point_records : h->extended_number_of_point_records;
  laszip_point* p; laszip_get_point_pointer(r, &p);
  unsigned long long sum = 0;
  std::vector<laszip_point> pts;
  bool enc = strcmp(argv[1], "encode") == 0;
  if (enc) pts.resize(n);
  for (laszip_I64 i = 0; i < n; i++) {
    if (laszip_read_point(r)) { char* e; laszip_get_error(r, &e); fprintf(stderr, "point %lld: %s\n", (long long)i, e); return 1; }
    sum = sum * 1000003 + (unsigned)p->X * 7 + (unsigned)p->Y * 13 + (unsigned)p->Z * 17 + p->intensity + p->rgb[0] + p->rgb[1] * 3 + p->rgb[2] * 5 + p->classification + (unsigned long long)(p->gps_time * 1000);
    if (enc) pts[i] = *p;
  }
  double w1 = now(), c1 = cpu();
  if (!enc) {
    printf("{\"peer\":\"LASzip %d.%d.%d\",\"op\":\"decode\",\"points\":%lld,\"seconds\":%.4f,\"cpuSeconds\":%.4f,\"digest\":\"%016llx\"}\n", LASZIP_VERSION_MAJOR, LASZIP_VERSION_MINOR, LASZIP_VERSION_REVISION, (long long)n, w1 - w0, c1 - c0, sum);
    return 0;
  }
  laszip_POINTER w; laszip_create(&w);
  laszip_set_header(w, h);
  double w2 = now(), c2 = cpu();
  if (laszip_open_writer(w, argv[3], 1)) { char* e; laszip_get_error(w, &e); fprintf(stderr, "open writer: %s\n", e); return 1; }
  laszip_point* q; laszip_get_point_pointer(w, &q);
  for (laszip_I64 i = 0; i < n; i++) { laszip_set_point(w, &pts[i]); laszip_write_point(w); }
  laszip_close_writer(w);
  double w3 = now(), c3 = cpu();
  printf("{\"peer\":\"LASzip %d.%d.%d\",\"op\":\"encode\",\"points\":%lld,\"seconds\":%.4f,\"cpuSeconds\":%.4f}\n", LASZIP_VERSION_MAJOR, LASZIP_VERSION_MINOR, LASZIP_VERSION_REVISION, (long long)n, w3 - w2, c3 - c2);
  return 0;
}
