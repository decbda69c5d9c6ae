// Structs declared from a field list, so that a field crossing the JS
// boundary is written once. A list is a macro taking X and calling
//   X(C++ type, member, jsName, codec, default...)
// once per field; the struct declares its members with POSENC_DECLARE_FIELD,
// and bindings/codecs.h registers the same list with Embind (and reports it
// to tests/ts/contract.test.ts, which checks the TypeScript types against
// it). The codec says how the field crosses:
//   Plain:          as it is (numbers, booleans, nested structs);
//   EnumName:       an enum as its name (the table its parser reads);
//   NumberList:     a std::vector<double> as an array of numbers;
//   OptionalNumber: a double whose has_<member> flag is false when JS sends
//                   NaN (absent);
//   Address:        a pointer as a byte address in wasm memory (the TS layer
//                   allocates and fills it; 0 = absent);
//   Optional:       a std::optional<number> as a number, or undefined when
//                   absent (C++ derives the value).
// 64-bit integers cross as JS numbers (doubles).
// Nothing here depends on Embind: the ops and the model only see structs.
#ifndef POSENC_BASE_FIELDS_H_
#define POSENC_BASE_FIELDS_H_

namespace posenc {

struct Plain {};
struct EnumName {};
struct NumberList {};
struct OptionalNumber {};
struct Address {};
struct Optional {};

}  // namespace posenc

#define POSENC_DECLARE_FIELD(type, member, js_name, codec, ...) \
  type member = __VA_ARGS__;

#endif  // POSENC_BASE_FIELDS_H_
