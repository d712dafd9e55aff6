// A side-by-side peer for BenchmarkPointwise: decodes a LAZ file with
// LASzip's DLL API (or decodes it into memory and encodes it again) and
// prints one JSON line: points, wall and CPU seconds, and a digest of the
// decoded fields. LASzip is not packaged where pctk is developed; build.sh
// compiles this against LASzip's source.
// Usage: bench decode in.laz | bench encode in.la[sz] out.laz
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <chrono>
#include <vector>
#include "laszip_api.h"
#include "laszip_api_version.h"
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
  unsigned long long sum = 14695981039346656037ULL;
  std::vector<laszip_point> pts;
  std::vector<laszip_U8> extra;
  bool enc = strcmp(argv[1], "encode") == 0;
  if (enc) pts.resize(n);
  for (laszip_I64 i = 0; i < n; i++) {
    if (laszip_read_point(r)) { char* e; laszip_get_error(r, &e); fprintf(stderr, "point %lld: %s\n", (long long)i, e); return 1; }
    // Every field of the point, extra bytes included, into an FNV-1a digest.
    unsigned long long f[] = {(unsigned)p->X, (unsigned)p->Y, (unsigned)p->Z, p->intensity, p->return_number, p->number_of_returns,
      p->scan_direction_flag, p->edge_of_flight_line, p->classification, p->synthetic_flag, p->keypoint_flag, p->withheld_flag,
      (unsigned char)p->scan_angle_rank, p->user_data, p->point_source_ID, (unsigned short)p->extended_scan_angle,
      p->extended_scanner_channel, p->extended_classification_flags, p->extended_classification, p->extended_return_number,
      p->extended_number_of_returns, p->rgb[0], p->rgb[1], p->rgb[2], p->rgb[3]};
    unsigned long long g;
    memcpy(&g, &p->gps_time, 8);
    for (unsigned long long v : f) sum = (sum ^ v) * 1099511628211ULL;
    sum = (sum ^ g) * 1099511628211ULL;
    for (int k = 0; k < 29; k++) sum = (sum ^ p->wave_packet[k]) * 1099511628211ULL;
    for (int k = 0; k < p->num_extra_bytes; k++) sum = (sum ^ p->extra_bytes[k]) * 1099511628211ULL;
    if (enc) {
      // extra_bytes points into the reader's buffer: keep a copy per point.
      pts[i] = *p;
      extra.insert(extra.end(), p->extra_bytes, p->extra_bytes + p->num_extra_bytes);
    }
  }
  double w1 = now(), c1 = cpu();
  if (!enc) {
    printf("{\"peer\":\"LASzip %d.%d.%d\",\"op\":\"decode\",\"points\":%lld,\"seconds\":%.4f,\"cpuSeconds\":%.4f,\"digest\":\"%016llx\"}\n", LASZIP_API_VERSION_MAJOR, LASZIP_API_VERSION_MINOR, LASZIP_API_VERSION_PATCH, (long long)n, w1 - w0, c1 - c0, sum);
    return 0;
  }
  laszip_POINTER w; laszip_create(&w);
  laszip_set_header(w, h);
  if (h->point_data_format > 5) laszip_request_native_extension(w, 1); // layered v3, not compatibility mode
  double w2 = now(), c2 = cpu();
  if (laszip_open_writer(w, argv[3], 1)) { char* e; laszip_get_error(w, &e); fprintf(stderr, "open writer: %s\n", e); return 1; }
  laszip_point* q; laszip_get_point_pointer(w, &q);
  size_t at = 0;
  for (laszip_I64 i = 0; i < n; i++) {
    pts[i].extra_bytes = extra.data() + at;
    at += pts[i].num_extra_bytes;
    laszip_set_point(w, &pts[i]);
    laszip_write_point(w);
  }
  laszip_close_writer(w);
  double w3 = now(), c3 = cpu();
  printf("{\"peer\":\"LASzip %d.%d.%d\",\"op\":\"encode\",\"points\":%lld,\"seconds\":%.4f,\"cpuSeconds\":%.4f}\n", LASZIP_API_VERSION_MAJOR, LASZIP_API_VERSION_MINOR, LASZIP_API_VERSION_PATCH, (long long)n, w3 - w2, c3 - c2);
  return 0;
}
