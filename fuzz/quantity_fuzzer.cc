// Fuzz target: api/quantity.h Quantity::Parse (resources, capacity, allocatable, overhead).
// Input: any bytes, as a quantity string ("500m", "1.5Gi").
// Oracles (quantity.h's contract): the canonical form parses back to an equal quantity, and is
// a fixed point from the second round on (as in apimachinery, "312.5Ki" prints as "320000",
// which parses as DecimalSI and prints as "320k"); arithmetic on a parsed value (Add, Sub, Neg, Value, MilliValue) does not crash.
#include "api/quantity.h"
#include "fuzz/fuzz_support.h"

using tidepool::api::Quantity;
using tidepool::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto q = Quantity::Parse(tidepool::fuzz::AsText(data, size));
  if (!q.ok()) return 0;
  const std::string s = q->ToString();
  auto again = Quantity::Parse(s);
  Check(again.ok(), "Parse(ToString(q)) failed", s);
  Check(again->Compare(*q) == 0, "Parse(ToString(q)) != q", s);
  const std::string s2 = again->ToString();
  auto third = Quantity::Parse(s2);
  Check(third.ok() && third->ToString() == s2, "ToString is not a fixed point after a round", s2);
  (void)q->Value();
  (void)q->MilliValue();
  Quantity sum = *q;
  sum.Add(*q);
  sum.Sub(*q);
  Check(sum.Compare(*q) == 0, "q + q - q != q", s);
  sum.Neg();
  (void)sum.ToString();
  return 0;
}
