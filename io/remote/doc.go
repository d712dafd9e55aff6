// Package remote reads files over HTTP(S) with range requests: a File is
// an io.ReaderAt with a Size, knowing nothing of formats, so that pctk's
// codecs read a URL as they read a local file. COPC then fetches only the
// hierarchy pages and nodes a query touches, LAZ its chunk table and then
// its chunks in parallel, and every other format streams (File.Reader,
// with a read-ahead window that grows while the reads are sequential).
//
// What it does, after RFC 9110 (sections 13 and 14: Range, Content-Range,
// 206, 416, If-Match, If-Unmodified-Since) and the habits of object stores
// (S3, GCS and Azure presigned URLs are plain HTTPS):
//
//   - Open sends one GET for the first Options.HeadAhead bytes (the
//     headers of every format fit in it), learns the size from
//     Content-Range and keeps the ETag or Last-Modified; small reads later
//     fetch HeadAhead bytes too and are kept in a small cache.
//   - Reads go through a pool of Options.Parallel requests in flight;
//     waiting ranges that touch or overlap are merged into one request.
//   - 5xx answers, 408, 429 and broken connections are retried with
//     exponential backoff (a broken body resumes where it stopped); other
//     4xx answers are an *Error naming the URL (without its query, which
//     may hold a signature) and the status. Headers (Options.Header) are
//     never put in errors.
//   - Every answer after the first must carry the same ETag (or, without
//     one, Last-Modified) and total size, and requests say If-Match (or
//     If-Unmodified-Since): a file replaced mid-read is ErrChanged, never a
//     mix of two files.
//   - A server that ignores Range (200 to the first request) is read once,
//     streamed into an unlinked temporary file, with a warning.
//
// See docs/remote.md.
package remote
