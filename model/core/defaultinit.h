// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace gml {

// An allocator whose value-initialisation is default-initialisation: a vector of it grows
// (resize) without writing zeros into memory that is written before it is read. A large
// buffer zeroed only to be overwritten costs a pass over it and, when it is fresh, every page
// faulted in by the zeroing instead of by the real write.
template <class T, class Base = std::allocator<T>> class DefaultInitAllocator : public Base
{
    using Traits = std::allocator_traits<Base>;

public:
    template <class U> struct rebind
    {
        using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
    };
    using Base::Base;

    template <class U> void construct(U *p) noexcept(std::is_nothrow_default_constructible_v<U>)
    {
        ::new (static_cast<void *>(p)) U;
    }
    template <class U, class... Args> void construct(U *p, Args &&...args)
    {
        Traits::construct(static_cast<Base &>(*this), p, std::forward<Args>(args)...);
    }
};

// Bytes read into before they are looked at (an input's parse buffer).
using ByteBuffer = std::vector<char, DefaultInitAllocator<char>>;

} // namespace gml
