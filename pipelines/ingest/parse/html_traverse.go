package parse

import (
	"context"

	"golang.org/x/net/html"
)

// nodesPerCtxCheck is how many nodes a walk over a page visits between
// looks at ctx.
const nodesPerCtxCheck = 4096

// traverse visits the tree under root in document order without
// recursion: enter is called on every node reached and says whether to
// go into its children; exit is called after the children of every node
// entered that way. It stops with ctx's error once ctx is done.
func traverse(ctx context.Context, root *html.Node, enter func(*html.Node) bool, exit func(*html.Node)) error {
	n := root
	for visited := 1; ; visited++ {
		if visited%nodesPerCtxCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		descend := enter(n)
		if descend && n.FirstChild != nil {
			n = n.FirstChild
			continue
		}
		if descend {
			exit(n)
		}
		for n != root && n.NextSibling == nil {
			n = n.Parent
			exit(n)
		}
		if n == root {
			return nil
		}
		n = n.NextSibling
	}
}
