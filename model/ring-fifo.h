/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_TRAINING_RING_FIFO_H
#define AI_TRAINING_RING_FIFO_H

#include <cstdint>
#include <memory>
#include <new>
#include <utility>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief A FIFO on a power-of-two ring that allocates nothing while it has never held an
 * element.
 *
 * The per-port and per-QP queues of the module are empty most of the time and there are
 * thousands of them at scale; `std::deque` allocates a 512-byte block and its map even when
 * empty. RingFifo holds only a pointer and three integers (24 bytes) until the first push,
 * starts at 4 slots and doubles when full (it never shrinks, so a busy queue reaches a steady
 * size and then allocates nothing). An emptied FIFO starts again at its first slot, so a queue
 * that holds one element at a time reuses one slot instead of walking through all of them.
 *
 * \tparam T the element type (movable)
 */
template <typename T>
class RingFifo
{
  public:
    RingFifo() = default;
    RingFifo(const RingFifo&) = delete;
    RingFifo& operator=(const RingFifo&) = delete;

    ~RingFifo()
    {
        clear();
    }

    /// \return true if no element is queued
    bool empty() const
    {
        return m_size == 0;
    }

    /// \return the number of queued elements
    uint32_t size() const
    {
        return m_size;
    }

    /// \return the number of slots allocated
    uint32_t capacity() const
    {
        return m_cap;
    }

    /// \return the oldest element (the FIFO must not be empty)
    T& front()
    {
        return *Slot(m_head);
    }

    /// \return the oldest element (the FIFO must not be empty)
    const T& front() const
    {
        return *Slot(m_head);
    }

    /// \return the newest element (the FIFO must not be empty)
    T& back()
    {
        return *Slot((m_head + m_size - 1) & (m_cap - 1));
    }

    /**
     * \param i position from the front (< size())
     * \return the element
     */
    T& operator[](uint32_t i)
    {
        return *Slot((m_head + i) & (m_cap - 1));
    }

    /**
     * \param i position from the front (< size())
     * \return the element
     */
    const T& operator[](uint32_t i) const
    {
        return *Slot((m_head + i) & (m_cap - 1));
    }

    /**
     * \brief Where the element at a position is or will be, for a prefetch (no bounds check).
     * \param i position from the front (may be >= size())
     * \return the slot's address, or nullptr before the first push
     */
    const void* address(uint32_t i) const
    {
        return m_buf ? static_cast<const void*>(m_buf[(m_head + i) & (m_cap - 1)].bytes) : nullptr;
    }

    /**
     * \brief Append copies of v until the FIFO holds n elements.
     * \param n the size wanted
     * \param v the value of the new elements
     */
    void grow_to(uint32_t n, const T& v)
    {
        while (m_size < n)
        {
            push_back(v);
        }
    }

    /**
     * \brief Append an element.
     *
     * The element is constructed in its slot: the slot's old bytes are never read (at scale
     * a queue's slot is cold in the cache when it is reused, and only a load would stall).
     * \param v the element
     */
    void push_back(T v)
    {
        if (m_size == m_cap)
        {
            Grow();
        }
        new (Slot((m_head + m_size) & (m_cap - 1))) T(std::move(v));
        ++m_size;
    }

    /// Remove the oldest element (the FIFO must not be empty).
    void pop_front()
    {
        Slot(m_head)->~T();
        // an emptied FIFO starts again at slot 0: a queue that holds one element at a time
        // keeps reusing one (cache-warm) slot instead of walking through all of them
        m_head = --m_size == 0 ? 0 : (m_head + 1) & (m_cap - 1);
    }

    /// Remove every element (the slots stay allocated).
    void clear()
    {
        while (m_size > 0)
        {
            pop_front();
        }
        m_head = 0;
    }

    /// Remove every element and free the slots (the next push allocates again).
    void release()
    {
        clear();
        m_buf.reset();
        m_cap = 0;
    }

  private:
    /// Raw storage of one element.
    struct alignas(T) Storage
    {
        unsigned char bytes[sizeof(T)]; //!< the element's bytes
    };

    /**
     * \param i slot index
     * \return the element in slot i
     */
    T* Slot(uint32_t i) const
    {
        return std::launder(reinterpret_cast<T*>(m_buf[i].bytes));
    }

    /// Double the slots (4 at first), moving the elements to the front of the new ring.
    void Grow()
    {
        const uint32_t cap = m_cap ? 2 * m_cap : 4;
        std::unique_ptr<Storage[]> buf(new Storage[cap]);
        for (uint32_t i = 0; i < m_size; ++i)
        {
            T* old = Slot((m_head + i) & (m_cap - 1));
            new (buf[i].bytes) T(std::move(*old));
            old->~T();
        }
        m_buf = std::move(buf);
        m_cap = cap;
        m_head = 0;
    }

    std::unique_ptr<Storage[]> m_buf; //!< the ring (nullptr until the first push)
    uint32_t m_cap{0};                //!< slots (0 or a power of two)
    uint32_t m_head{0};               //!< index of the oldest element
    uint32_t m_size{0};               //!< queued elements
};

} // namespace ns3

#endif /* AI_TRAINING_RING_FIFO_H */
