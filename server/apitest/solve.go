package apitest

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	quoted = regexp.MustCompile(`"([^"]+)"`)
	number = regexp.MustCompile(`\d+`)
)

// Solve answers a board challenge from its question alone, as an agent would: count a letter, add the numbers,
// or reverse the quoted word.
func Solve(question string) string {
	q := quoted.FindAllStringSubmatch(question, -1)
	switch {
	case strings.Contains(question, "letter") && len(q) == 2:
		letter, word := q[0][1], q[1][1]
		if len(letter) > 1 {
			letter, word = word, letter
		}
		return strconv.Itoa(strings.Count(word, letter))
	case len(q) == 0:
		sum := 0
		for _, n := range number.FindAllString(question, -1) {
			v, _ := strconv.Atoi(n)
			sum += v
		}
		return strconv.Itoa(sum)
	default:
		r := []rune(q[0][1])
		slices.Reverse(r)
		return string(r)
	}
}
