package arith

// Constants of LASzip's coder (arithmeticmodel.hpp).
const (
	minLength = 0x01000000 // renormalise when the interval is shorter
	maxLength = 0xFFFFFFFF // the interval's length after a reset

	bmLengthShift = 13 // length bits dropped before a bit model's product
	bmMaxCount    = 1 << bmLengthShift

	dmLengthShift = 15 // length bits dropped before a symbol model's product
	dmMaxCount    = 1 << dmLengthShift

	maxSymbols = 1 << 11 // the largest alphabet a SymbolModel takes
)

// BitModel is an adaptive model of one binary decision (LASzip's
// ArithmeticBitModel). Its zero value is not ready; use NewBitModel or Init.
type BitModel struct {
	updateCycle, untilUpdate uint32
	prob0, count0, count     uint32
}

// NewBitModel returns a bit model in its initial, equiprobable state.
func NewBitModel() *BitModel {
	m := &BitModel{}
	m.Init()
	return m
}

// Init puts the model back into its initial, equiprobable state.
func (m *BitModel) Init() {
	m.count0 = 1
	m.count = 2
	m.prob0 = 1 << (bmLengthShift - 1)
	m.updateCycle = 4
	m.untilUpdate = 4
}

// update halves the counts when they grow past the limit, recomputes the
// probability of a 0 and lengthens the update cycle by a quarter, up to 64.
func (m *BitModel) update() {
	m.count += m.updateCycle
	if m.count > bmMaxCount {
		m.count = (m.count + 1) >> 1
		m.count0 = (m.count0 + 1) >> 1
		if m.count0 == m.count {
			m.count++
		}
	}
	scale := uint32(0x80000000) / m.count
	m.prob0 = (m.count0 * scale) >> (31 - bmLengthShift)
	m.updateCycle = (5 * m.updateCycle) >> 2
	if m.updateCycle > 64 {
		m.updateCycle = 64
	}
	m.untilUpdate = m.updateCycle
}

// SymbolModel is an adaptive model of an alphabet of 2 to 2048 symbols
// (LASzip's ArithmeticModel). Its storage is allocated on first use, and a
// decoder adds a look-up table for alphabets above 16 symbols, as LASzip
// does; the table only speeds the search, so one model type serves both
// directions. Init resets it to the equiprobable state at its next use.
type SymbolModel struct {
	dist  []uint32 // cumulative distribution, 15-bit fixed point
	count []uint32 // symbol counts since the last halving
	table []uint32 // decoder look-up: first symbol of each distribution slot

	totalCount, updateCycle, untilUpdate uint32
	symbols, lastSymbol, tableShift      uint32
	ready                                bool
}

// NewSymbolModel returns a model of an n-symbol alphabet. n must lie in
// [2, 2048]; NewSymbolModel panics otherwise, since n always comes from a
// codec's constant, never from input.
func NewSymbolModel(n uint32) *SymbolModel {
	m := newSymbolModel(n)
	return &m
}

func newSymbolModel(n uint32) SymbolModel {
	if n < 2 || n > maxSymbols {
		panic("arith: symbol model needs 2 to 2048 symbols")
	}
	return SymbolModel{symbols: n, lastSymbol: n - 1}
}

// Init marks the model to be reset to its initial, equiprobable state at
// its next use; its storage is kept.
func (m *SymbolModel) Init() { m.ready = false }

// reset allocates the storage on first use and sets every count to 1.
// decoding asks for the look-up table of alphabets above 16 symbols.
func (m *SymbolModel) reset(decoding bool) {
	n := m.symbols
	if m.dist == nil || decoding && n > 16 && m.table == nil {
		// One allocation for the distribution, the counts and the
		// decoder's table, so that a model's data sit together.
		size := 2 * n
		var bits uint32
		if decoding && n > 16 {
			bits = 3
			for n > 1<<(bits+2) {
				bits++
			}
			size += 1<<bits + 2
		}
		buf := make([]uint32, size)
		m.dist, m.count = buf[:n:n], buf[n:2*n:2*n]
		if bits > 0 {
			m.table = buf[2*n:]
			m.tableShift = dmLengthShift - bits
		}
	}
	m.totalCount = 0
	m.updateCycle = n
	for k := range m.count {
		m.count[k] = 1
	}
	m.update()
	m.updateCycle = (n + 6) >> 1
	m.untilUpdate = m.updateCycle
	m.ready = true
}

// update halves the counts past the limit, recomputes the cumulative
// distribution (and the decoder table) and lengthens the update cycle by a
// quarter, up to 8 times the alphabet (plus 6).
func (m *SymbolModel) update() {
	m.totalCount += m.updateCycle
	if m.totalCount > dmMaxCount {
		m.totalCount = 0
		for i, c := range m.count {
			c = (c + 1) >> 1
			m.count[i] = c
			m.totalCount += c
		}
	}
	scale := uint32(0x80000000) / m.totalCount
	var sum uint32
	if m.table == nil {
		for k, c := range m.count {
			m.dist[k] = (scale * sum) >> (31 - dmLengthShift)
			sum += c
		}
	} else {
		var s uint32
		t := m.table
		for k, c := range m.count {
			d := (scale * sum) >> (31 - dmLengthShift)
			m.dist[k] = d
			sum += c
			for w := d >> m.tableShift; s < w; {
				s++
				t[s] = uint32(k) - 1
			}
		}
		t[0] = 0
		for s <= uint32(len(t))-2 {
			s++
			t[s] = m.symbols - 1
		}
	}
	m.updateCycle = (5 * m.updateCycle) >> 2
	if limit := (m.symbols + 6) << 3; m.updateCycle > limit {
		m.updateCycle = limit
	}
	m.untilUpdate = m.updateCycle
}
