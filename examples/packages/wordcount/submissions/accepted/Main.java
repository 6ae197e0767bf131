import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.HashSet;
import java.util.Set;

public class Main {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringBuilder text = new StringBuilder();
        String line;
        while ((line = in.readLine()) != null) text.append(line).append('\n');
        int count = 0;
        Set<String> distinct = new HashSet<>();
        for (String word : text.toString().split("[^A-Za-z]+")) {
            if (!word.isEmpty()) {
                count++;
                distinct.add(word);
            }
        }
        System.out.println(count + " " + distinct.size());
    }
}
